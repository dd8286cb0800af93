/**
 * Fair admission at the HTTP front end (docs/architecture.md, "Fair between tenants"). While the
 * event loop keeps up, a request runs at once: a comparison and a counter, no allocation. While
 * it is behind (sampled lag), requests wait in one bounded queue per lane (an instance, found
 * from the Host) and start round-robin across the lanes with waiting requests — deficit round
 * robin with a unit cost per request — right after the loop's I/O phase and as running handlers
 * finish, at most `maxInFlight` at a time. So what arrived together is served in turn across
 * instances instead of in arrival order: a hammered instance waits behind its own backlog while
 * another instance's request starts within one turn. A full lane answers 503 with Retry-After.
 *
 * The queue is intrusive (exchanges link to each other), so waiting costs no allocation either
 * beyond a lane's record while it has requests.
 */
import type { HttpReply, HttpRequest } from './types.js';

export interface FairOptions {
  /** Handlers started from the lanes and running at once while the loop is behind (TESSERA_FAIR_MAX_IN_FLIGHT). */
  readonly maxInFlight: number;
  /** Requests one lane may have waiting; more answer 503 (TESSERA_FAIR_QUEUE_CAPACITY). */
  readonly queueCapacity: number;
  /**
   * The lane of a request (its instance), asked only when the request has to wait; undefined
   * for requests that never wait (health and readiness probes, metrics).
   */
  readonly laneOf: (request: HttpRequest) => string | undefined;
  /**
   * The event loop counts as behind when a timer every SAMPLE_MS fires more than this late
   * (TESSERA_FAIR_LAG_MS); only then do requests wait in their lanes. 0: always behind (every
   * request goes through the lanes; tests force the scheduler on this way).
   */
  readonly lagMs: number;
}

/** How often the event loop's lag is sampled. */
const SAMPLE_MS = 20;

/** What the scheduler keeps of a waiting request (the adapters' exchanges). */
export interface Waiting extends HttpRequest {
  /** The next request of the same lane. */
  fairNext: Waiting | undefined;
  /** The client went away, or the request was answered, while it waited: skipped. */
  readonly aborted: boolean;
  readonly done: boolean;
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
  /** Set while `finish` starts waiting requests (a handler that answers at once re-enters). */
  draining = false;
  readonly maxInFlight: number;
  private readonly queueCapacity: number;
  private readonly laneOf: (request: HttpRequest) => string | undefined;
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with waiting requests, served in turn from `cursor`. */
  private readonly ring: Lane[] = [];
  private cursor = 0;
  /** Whether the event loop is behind (last sample), or always with `lagMs` 0. */
  lagging = true;
  private readonly lagMs: number;
  private lastSample = 0;
  private sampler: NodeJS.Timeout | undefined;
  /** Starts waiting requests while there is room (set by the listener using this scheduler). */
  private resume: (() => void) | undefined;
  private startScheduled = false;
  private readonly startLater = (): void => {
    this.startScheduled = false;
    if (this.queued !== 0) this.resume?.();
  };

  constructor(options: FairOptions) {
    this.maxInFlight = options.maxInFlight;
    this.queueCapacity = options.queueCapacity;
    this.laneOf = options.laneOf;
    this.lagMs = options.lagMs;
    if (this.lagMs > 0) {
      this.lagging = false;
      this.lastSample = performance.now();
      this.sampler = setInterval(() => this.sample(), SAMPLE_MS);
      this.sampler.unref();
    }
  }

  /** Called by the listener: how to start the waiting requests when the loop caught up. */
  attach(resume: () => void): void {
    this.resume = resume;
  }

  /** Stops sampling the event loop. */
  close(): void {
    clearInterval(this.sampler);
  }

  /** One lag sample (the timer's; tests that stopped the timer call it themselves). */
  sample(now = performance.now()): void {
    this.lagging = now - this.lastSample - SAMPLE_MS > this.lagMs;
    this.lastSample = now;
    if (!this.lagging && this.queued !== 0) this.resume?.();
  }

  /** RUN (counted in flight: call `finish` when its handler is done), WAIT (queued) or REFUSED (lane full: answer 503). */
  admit(request: Waiting): number {
    if (this.queued === 0 && !this.lagging) {
      this.inFlight += 1;
      return RUN;
    }
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
    request.fairNext = undefined;
    if (lane.tail === undefined) lane.head = request;
    else lane.tail.fairNext = request;
    lane.tail = request;
    lane.size += 1;
    this.queued += 1;
    if (!this.startScheduled) {
      // After this loop iteration's I/O: what arrived together starts in turn across the lanes.
      this.startScheduled = true;
      setImmediate(this.startLater);
    }
    return WAIT;
  }

  /**
   * The next waiting request to start, taking the lanes in turn (counted in flight), or
   * undefined when none waits or `maxInFlight` handlers run while the loop is behind. Requests
   * whose client went away are dropped on the way.
   */
  next(): Waiting | undefined {
    while ((this.inFlight < this.maxInFlight || !this.lagging) && this.ring.length !== 0) {
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
      this.inFlight += 1;
      return request;
    }
    return undefined;
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
