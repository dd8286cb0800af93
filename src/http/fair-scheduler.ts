/**
 * Fair admission at the HTTP front end (docs/architecture.md, "Fair between tenants"). Every
 * request of an instance waits in that instance's bounded queue (a lane, found from the Host)
 * until the loop turn's check phase: what one poll read then starts round-robin across the lanes
 * with waiting requests (deficit round robin, unit cost), at most `turnBudget` requests per turn
 * (`contendedTurnBudget` for a second after a turn found several lanes waiting). Past the budget
 * the rest waits for the next turn, after the next poll — so a request of another instance that
 * arrives meanwhile starts after at most that many requests of a hammered instance, not behind
 * everything that instance had sent. While the loop is behind (sampled lag)
 * at most `maxInFlight` started handlers run at once. A full lane answers 503 with Retry-After at
 * once; a request that waited past `maxWaitMs` is answered 503 instead of started.
 *
 * Replies already in memory (JWKS, discovery: HttpServerOptions.immediate) never reach the
 * scheduler; docs/architecture.md, "Fair admission", says why that keeps it fair.
 *
 * The queue is intrusive (exchanges link to each other), so waiting costs no allocation beyond a
 * lane's record while it has requests; a turn costs one setImmediate.
 */
import type { HttpReply, HttpRequest } from './types.js';

export interface FairOptions {
  /** Handlers started from the lanes and running at once while the loop is behind (TESSERA_FAIR_MAX_IN_FLIGHT). */
  readonly maxInFlight: number;
  /** Requests one lane may have waiting; more answer 503 (TESSERA_FAIR_QUEUE_CAPACITY). */
  readonly queueCapacity: number;
  /** Requests started per loop turn, lanes in turn; the rest start after the next poll (TESSERA_FAIR_TURN_BUDGET). */
  readonly turnBudget: number;
  /**
   * The turn budget while instances contend: from a turn that found more than one lane waiting
   * until CONTENDED_MS later (TESSERA_FAIR_CONTENDED_TURN_BUDGET; at most `turnBudget`, which it
   * defaults to). A smaller budget polls more often, so another instance's request waits behind
   * fewer of a hammered one's; one instance alone keeps the larger budget's fewer polls.
   */
  readonly contendedTurnBudget?: number;
  /** A request that waited longer in its lane is answered 503, not started (TESSERA_FAIR_MAX_WAIT_MS). */
  readonly maxWaitMs: number;
  /**
   * The lane of a request (its instance); undefined for requests that never wait (health and
   * readiness probes, metrics).
   */
  readonly laneOf: (request: HttpRequest) => string | undefined;
  /**
   * The event loop counts as behind when a timer every SAMPLE_MS fires more than this late
   * (TESSERA_FAIR_LAG_MS); only then is `maxInFlight` enforced. 0: always behind.
   */
  readonly lagMs: number;
  /** Milliseconds (performance.now); read when a turn is scheduled and when it runs. Tests pass their own. */
  readonly now?: () => number;
}

/** How often the event loop's lag is sampled. */
const SAMPLE_MS = 20;
/** How long the contended turn budget holds after a turn found more than one lane waiting. */
export const CONTENDED_MS = 1000;

/** What the scheduler keeps of a waiting request (the adapters' exchanges). */
export interface Waiting extends HttpRequest {
  /** The next request of the same lane. */
  fairNext: Waiting | undefined;
  /**
   * When the request was queued, to within one turn: the time the turn it waits for was
   * scheduled (one clock read per turn, none per request), so never later than the truth.
   */
  fairQueuedAt: number;
  /** The client went away, or the request was answered, while it waited: skipped. */
  readonly aborted: boolean;
  readonly done: boolean;
}

/** What the listener using the scheduler does with a request whose turn came. */
export interface FairListener {
  /** Runs the handler (the request is counted in flight: call `finish` when it is done). */
  start(request: Waiting): void;
  /** Answers 503: the request waited past `maxWaitMs`. */
  expire(request: Waiting): void;
}

interface Lane {
  readonly key: string;
  head: Waiting | undefined;
  tail: Waiting | undefined;
  size: number;
}

/** `admit`'s verdicts. */
export const RUN = 0;
export const WAIT = 1;
export const REFUSED = 2;

export class FairScheduler {
  /** Handlers running (admitted and not finished). */
  inFlight = 0;
  /** Requests waiting in all lanes. */
  queued = 0;
  /** Requests refused because their lane was full (since start). */
  refused = 0;
  /** Requests answered 503 because they waited past `maxWaitMs` (since start). */
  expired = 0;
  /** Loop turns that started requests (since start). */
  turns = 0;
  readonly maxInFlight: number;
  private readonly queueCapacity: number;
  private readonly turnBudget: number;
  private readonly contendedTurnBudget: number;
  /** Until when (`now`) turns take the contended budget. */
  private contendedUntil = -Infinity;
  private readonly maxWaitMs: number;
  private readonly laneOf: (request: HttpRequest) => string | undefined;
  private readonly now: () => number;
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with waiting requests, served in turn from `cursor`. */
  private readonly ring: Lane[] = [];
  private cursor = 0;
  /** Whether the event loop is behind (last sample), or always with `lagMs` 0. */
  lagging = true;
  private readonly lagMs: number;
  private lastSample = 0;
  private sampler: NodeJS.Timeout | undefined;
  private listener: FairListener | undefined;
  private turnScheduled = false;
  /** When the pending turn was scheduled: the queue time of the requests admitted for it. */
  private turnQueuedAt = 0;
  private readonly runTurn = (): void => {
    this.turnScheduled = false;
    this.turn();
  };

  constructor(options: FairOptions) {
    this.maxInFlight = options.maxInFlight;
    this.queueCapacity = options.queueCapacity;
    this.turnBudget = options.turnBudget;
    this.contendedTurnBudget = Math.min(options.contendedTurnBudget ?? options.turnBudget, options.turnBudget);
    this.maxWaitMs = options.maxWaitMs;
    this.laneOf = options.laneOf;
    this.now = options.now ?? performance.now.bind(performance);
    this.lagMs = options.lagMs;
    if (this.lagMs > 0) {
      this.lagging = false;
      this.lastSample = performance.now();
      this.sampler = setInterval(() => this.sample(), SAMPLE_MS);
      this.sampler.unref();
    }
  }

  /** Called by the listener: how to start (or expire) a request whose turn came. */
  attach(listener: FairListener): void {
    this.listener = listener;
  }

  /** Stops sampling the event loop. */
  close(): void {
    clearInterval(this.sampler);
  }

  /** One lag sample (the timer's; tests that stopped the timer call it themselves). */
  sample(now = performance.now()): void {
    this.lagging = now - this.lastSample - SAMPLE_MS > this.lagMs;
    this.lastSample = now;
    if (!this.lagging) this.wake();
  }

  /** RUN (counted in flight: call `finish` when its handler is done), WAIT (queued) or REFUSED (lane full: answer 503). */
  admit(request: Waiting): number {
    const key = this.laneOf(request);
    if (key === undefined) {
      this.inFlight += 1;
      return RUN;
    }
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { key, head: undefined, tail: undefined, size: 0 };
      this.lanes.set(key, lane);
      this.ring.push(lane);
    } else if (lane.size >= this.queueCapacity) {
      this.refused += 1;
      return REFUSED;
    }
    if (!this.turnScheduled) this.schedule(); // after this loop iteration's poll: what arrived together starts in turn across the lanes
    request.fairQueuedAt = this.turnQueuedAt;
    request.fairNext = undefined;
    if (lane.tail === undefined) lane.head = request;
    else lane.tail.fairNext = request;
    lane.tail = request;
    lane.size += 1;
    this.queued += 1;
    return WAIT;
  }

  /** A handler started by `admit` or a turn is done. */
  finish(): void {
    this.inFlight -= 1;
    if (this.queued !== 0 && this.inFlight === this.maxInFlight - 1) this.wake();
  }

  /** Schedules a turn when requests wait and none is scheduled. */
  private wake(): void {
    if (this.queued !== 0 && !this.turnScheduled) this.schedule();
  }

  private schedule(): void {
    this.turnScheduled = true;
    this.turnQueuedAt = this.now();
    setImmediate(this.runTurn);
  }

  /**
   * One turn: starts up to `turnBudget` waiting requests (`contendedTurnBudget` while instances
   * contend), taking the lanes in turn, while the in-flight cap allows. Requests whose client
   * went away are dropped; those past `maxWaitMs` expire. What remains waits for the next turn,
   * after the next poll (or for a slot).
   */
  turn(): void {
    const listener = this.listener;
    if (listener === undefined) return;
    const now = this.now();
    const oldest = now - this.maxWaitMs;
    if (this.ring.length > 1) this.contendedUntil = now + CONTENDED_MS;
    let budget = now < this.contendedUntil ? this.contendedTurnBudget : this.turnBudget;
    this.turns += 1;
    while (budget !== 0 && this.ring.length !== 0 && (this.inFlight < this.maxInFlight || !this.lagging)) {
      if (this.cursor >= this.ring.length) this.cursor = 0;
      const lane = this.ring[this.cursor] as Lane; // cursor < length
      const request = lane.head as Waiting; // lanes in the ring are never empty
      lane.head = request.fairNext;
      request.fairNext = undefined;
      lane.size -= 1;
      this.queued -= 1;
      if (lane.head === undefined) {
        lane.tail = undefined;
        this.ring.splice(this.cursor, 1); // the next lane moves under the cursor
        this.lanes.delete(lane.key);
      } else {
        this.cursor += 1;
      }
      if (request.aborted || request.done) continue;
      if (request.fairQueuedAt < oldest) {
        this.expired += 1;
        listener.expire(request);
        continue;
      }
      this.inFlight += 1;
      budget -= 1;
      listener.start(request);
    }
    if (budget === 0) this.wake(); // the rest after the next poll
  }
}

const RETRY_AFTER = '1';
const FULL_MESSAGE = 'too many requests are waiting for this instance; try again later';

/** The 503 of a full lane: the OAuth error shape on the OAuth/OIDC endpoints, google.rpc.Status elsewhere. */
export function laneFullReply(path: string): HttpReply {
  return path.startsWith('/oauth/') || path.startsWith('/oidc/') ? OAUTH_FULL : RPC_FULL;
}

const OAUTH_FULL: HttpReply = {
  status: 503,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', 'retry-after': RETRY_AFTER, 'x-content-type-options': 'nosniff' },
  body: JSON.stringify({ error: 'temporarily_unavailable', error_description: FULL_MESSAGE }),
};

const RPC_FULL: HttpReply = {
  status: 503,
  headers: { 'content-type': 'application/json', 'retry-after': RETRY_AFTER, 'x-content-type-options': 'nosniff' },
  body: JSON.stringify({
    code: 14, // UNAVAILABLE
    message: `${FULL_MESSAGE} (http.queue_full)`,
    details: [{ '@type': 'type.googleapis.com/platform.v1.ErrorDetail', id: 'http.queue_full', message: FULL_MESSAGE }],
  }),
};
