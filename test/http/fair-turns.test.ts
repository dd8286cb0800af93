/**
 * The fair scheduler's turns, driven without sockets: requests are admitted synchronously (as
 * one poll of the event loop reads them) and each turn is the scheduler's own setImmediate, so
 * the order in which handlers start — lanes in turn, at most the turn budget per turn — is
 * deterministic. The clock of the wait deadline is the test's.
 */
import { describe, expect, it } from 'vitest';
import { CONTENDED_MS, FairScheduler, REFUSED, RUN, WAIT, type FairOptions, type Waiting } from '../../src/http/fair-scheduler.js';

interface Fake {
  readonly name: string;
  readonly headers: Record<string, string>;
  readonly path: string;
  startedAt: number;
  fairNext: Waiting | undefined;
  fairQueuedAt: number;
  aborted: boolean;
  done: boolean;
}

/** A waiting request of `host` (its lane), named for the assertions. */
function request(name: string, host: string): Fake & Waiting {
  const fake: Fake = { name, headers: { host }, path: '/oauth/v2/token', startedAt: 0, fairNext: undefined, fairQueuedAt: 0, aborted: false, done: false };
  return fake as Fake & Waiting; // the scheduler reads only the fields above (and laneOf the host)
}

/** One loop turn: the scheduler's setImmediate, queued before this one, runs first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Harness {
  readonly fair: FairScheduler;
  /** `name@turn` of each started request, in start order. */
  readonly started: string[];
  readonly expired: string[];
  /** Ends a started request's handler (sync handlers end inside `start` when `finishAtOnce`). */
  readonly finish: () => void;
}

function harness(options: Partial<FairOptions> & { finishAtOnce?: boolean } = {}): Harness {
  const clock = { now: 0 };
  const fair = new FairScheduler({ maxInFlight: 64, queueCapacity: 100, turnBudget: 3, maxWaitMs: 1000, lagMs: 0, laneOf: (req) => req.headers['host'], now: () => clock.now, ...options });
  const started: string[] = [];
  const expired: string[] = [];
  const finishAtOnce = options.finishAtOnce ?? true;
  fair.attach({
    start: (req) => {
      started.push(`${(req as Fake & Waiting).name}@${fair.turns}`);
      if (finishAtOnce) fair.finish();
    },
    expire: (req) => expired.push((req as Fake & Waiting).name),
  });
  return { fair, started, expired, finish: () => fair.finish() };
}

async function drain(fair: FairScheduler): Promise<void> {
  while (fair.queued !== 0) await nextTurn();
}

describe('fair scheduler turns', () => {
  it('starts what one poll read lanes in turn, at most the turn budget per turn, the rest after the next poll', async () => {
    const { fair, started } = harness();
    for (let i = 1; i <= 6; i++) expect(fair.admit(request(`a${i}`, 'a.test'))).toBe(WAIT);
    expect(fair.admit(request('b1', 'b.test'))).toBe(WAIT);
    expect(fair.admit(request('b2', 'b.test'))).toBe(WAIT);
    expect(started).toEqual([]); // nothing runs inside the poll that read it
    await drain(fair);
    expect(started).toEqual(['a1@1', 'b1@1', 'a2@1', 'b2@2', 'a3@2', 'a4@2', 'a5@3', 'a6@3']);
  });

  it("starts a request of another instance that arrives behind a backlog after at most one turn budget of the backlog", async () => {
    const { fair, started } = harness();
    for (let i = 1; i <= 20; i++) fair.admit(request(`a${i}`, 'a.test'));
    await nextTurn();
    expect(started).toEqual(['a1@1', 'a2@1', 'a3@1']); // A's backlog did not run in one go
    fair.admit(request('b1', 'b.test')); // read by the next poll
    await nextTurn();
    expect(started.slice(3)).toEqual(['b1@2', 'a4@2', 'a5@2']); // the turn goes on from where the last one stopped: the new lane
    // Control: the same arrival without the turn budget's cut (budget above the backlog) waits behind all of A.
    const unbounded = harness({ turnBudget: 1000 });
    for (let i = 1; i <= 20; i++) unbounded.fair.admit(request(`a${i}`, 'a.test'));
    await nextTurn();
    unbounded.fair.admit(request('b1', 'b.test'));
    await drain(unbounded.fair);
    expect(unbounded.started.indexOf('b1@2')).toBe(20);
  });

  it('takes the contended budget from a turn that found several lanes waiting until CONTENDED_MS later; one lane alone keeps the full budget', async () => {
    const clock = { now: 0 };
    const { fair, started } = harness({ turnBudget: 4, contendedTurnBudget: 2, now: () => clock.now });
    for (let i = 1; i <= 6; i++) fair.admit(request(`a${i}`, 'a.test'));
    await nextTurn();
    expect(started).toEqual(['a1@1', 'a2@1', 'a3@1', 'a4@1']); // positive control: one lane, the full budget
    fair.admit(request('b1', 'b.test'));
    await nextTurn();
    expect(started.slice(4)).toEqual(['b1@2', 'a5@2']); // two lanes waiting: the contended budget
    clock.now = CONTENDED_MS - 1;
    for (let i = 7; i <= 12; i++) fair.admit(request(`a${i}`, 'a.test'));
    await nextTurn();
    expect(started.slice(6)).toEqual(['a6@3', 'a7@3']); // A alone again, still within the window
    clock.now = CONTENDED_MS;
    await nextTurn();
    expect(started.slice(8)).toEqual(['a8@4', 'a9@4', 'a10@4', 'a11@4']); // past it: the full budget
  });

  it('never takes a contended budget above the turn budget', async () => {
    const { fair, started } = harness({ turnBudget: 2, contendedTurnBudget: 5 });
    for (let i = 1; i <= 4; i++) fair.admit(request(`a${i}`, 'a.test'));
    fair.admit(request('b1', 'b.test'));
    await nextTurn();
    expect(started).toEqual(['a1@1', 'b1@1']);
  });

  it('answers REFUSED once a lane holds queueCapacity requests, while another lane is still admitted', async () => {
    const { fair, started } = harness({ queueCapacity: 2 });
    expect(fair.admit(request('a1', 'a.test'))).toBe(WAIT);
    expect(fair.admit(request('a2', 'a.test'))).toBe(WAIT);
    expect(fair.admit(request('a3', 'a.test'))).toBe(REFUSED);
    expect(fair.admit(request('b1', 'b.test'))).toBe(WAIT); // positive control: B's lane has room
    expect(fair.refused).toBe(1);
    await drain(fair);
    expect(started).toEqual(['a1@1', 'b1@1', 'a2@1']);
    expect(fair.admit(request('a4', 'a.test'))).toBe(WAIT); // A's lane has room again
  });

  it('runs requests without a lane at once (probes), counted in flight', () => {
    const { fair } = harness({ laneOf: (req) => (req.path === '/healthz' ? undefined : req.headers['host']) });
    const probe = { ...request('probe', 'a.test'), path: '/healthz' } as Fake & Waiting;
    expect(fair.admit(probe)).toBe(RUN);
    expect(fair.inFlight).toBe(1);
    expect(fair.queued).toBe(0);
  });

  it('answers a request that waited past maxWaitMs in its lane instead of starting it; one at the deadline still starts', async () => {
    const clock = { now: 0 };
    const { fair, started, expired, finish } = harness({ maxWaitMs: 100, maxInFlight: 1, finishAtOnce: false, now: () => clock.now });
    fair.admit(request('running', 'a.test')); // holds the only slot
    await nextTurn();
    clock.now = 10;
    fair.admit(request('old', 'a.test')); // queued at 10
    await nextTurn();
    clock.now = 50;
    fair.admit(request('edge', 'b.test')); // queued at 50
    await nextTurn();
    expect(started).toEqual(['running@1']);
    clock.now = 150; // old waited 140 ms, edge exactly 100
    finish();
    await drain(fair);
    expect(expired).toEqual(['old']);
    expect(started).toEqual(['running@1', 'edge@4']);
    expect(fair.expired).toBe(1);
    // The wait counts from the queue, not from the request's arrival (a slow body is not held against it).
    const late = request('slow-body', 'a.test');
    late.startedAt = -1_000_000;
    finish();
    fair.admit(late);
    await drain(fair);
    expect(started.at(-1)).toBe('slow-body@5');
  });

  it('skips requests whose client went away or that were answered while they waited', async () => {
    const { fair, started } = harness();
    const gone = request('gone', 'a.test');
    const answered = request('answered', 'a.test');
    fair.admit(gone);
    fair.admit(answered);
    fair.admit(request('kept', 'a.test'));
    gone.aborted = true;
    answered.done = true;
    await drain(fair);
    expect(started).toEqual(['kept@1']);
  });

  it('holds at most maxInFlight started handlers while the loop is behind, and starts the next one when a handler finishes', async () => {
    const { fair, started, finish } = harness({ maxInFlight: 2, finishAtOnce: false });
    for (let i = 1; i <= 4; i++) fair.admit(request(`a${i}`, 'a.test'));
    await nextTurn();
    await nextTurn();
    expect(started).toEqual(['a1@1', 'a2@1']); // the cap, not the budget of 3, stopped the turn
    expect(fair.inFlight).toBe(2);
    finish();
    await nextTurn();
    expect(started).toEqual(['a1@1', 'a2@1', 'a3@2']);
    // Control: once a sample finds the loop keeping up, the cap no longer applies.
    fair.lagging = false;
    fair.admit(request('a5', 'a.test'));
    await drain(fair);
    expect(started).toEqual(['a1@1', 'a2@1', 'a3@2', 'a4@3', 'a5@3']);
    expect(fair.inFlight).toBe(4);
  });
});
