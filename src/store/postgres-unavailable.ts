/**
 * A database that cannot be reached is a temporary condition, not a bug: errors of the
 * connection (refused, reset, closed, timed out, server shutting down or starting up) leave
 * the PostgreSQL store as `unavailable` (503 with Retry-After, gRPC UNAVAILABLE) instead of
 * `internal`, and a request-path call that gets no answer within CALL_DEADLINE_MS is
 * `unavailable` too. The whole adapter is wrapped once, so no call site can forget it.
 * docs/operations/postgres.md ("Database outages").
 */
import { AppError, unavailable, type StoreAdapter } from '../../actors/index.js';

/** What Retry-After says: the pool reconnects within about a second once the server is back. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * Longest a request-path store call may take (below an actor call's 10 s deadline, so the caller
 * hears 503 rather than 504): past it the caller gets `unavailable` whatever the driver is still
 * waiting for, so no request hangs on a connection that never answers.
 */
export const CALL_DEADLINE_MS = 8_000;

/** Calls that run for as long as their data is large (copy-store, scans): no deadline. */
const UNBOUNDED = new Set(['dump', 'load', 'close', 'scanRecords', 'scanUnique', 'instancesWithRows', 'readAcrossInstances', 'checkHealth', 'sweep']);

const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  // postgres.js's own
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  // SQLSTATE: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01', '57P02', '57P03', '53300',
]);

/** True for errors that say the database is not reachable right now (SQLSTATE class 08 too). */
export function isUnavailableError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || error instanceof AppError) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (CONNECTION_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code));
}

/** `work`, or `unavailable` once `ms` passed without it settling. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unanswered(ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function translated(error: unknown): AppError {
  const code = (error as { code: string }).code;
  return unavailable('store.unavailable', 'the database is unavailable; try again', { cause: error, detail: code, retryAfterSeconds: RETRY_AFTER_SECONDS });
}

function translate(error: unknown): never {
  throw isUnavailableError(error) ? translated(error) : error;
}

const unanswered = (ms: number) =>
  unavailable('store.unavailable', 'the database did not answer in time', { detail: `no answer within ${ms} ms`, retryAfterSeconds: RETRY_AFTER_SECONDS });

interface Waiting {
  readonly at: number;
  readonly reject: (error: unknown) => void;
}

/**
 * The deadlines of one store's bounded calls on one timer. Every call waits the same `ms`, so the
 * order the calls started in is the order their deadlines come in: the timer is set for the
 * oldest unsettled call's and, when it fires, fails the calls past theirs and is set for the next.
 * Same answers as withDeadline per call, without its timer, race and finally per call (a
 * setTimeout and clearTimeout per statement emptied and re-created Node's timer list each time;
 * bench/README.md "Node CPU per PostgreSQL statement"). The timer keeps the process alive only
 * while a call waits, as the per-call timers did.
 */
export class CallDeadlines {
  private readonly waiting = new Set<Waiting>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  /** `work` with connection errors translated, or `unavailable` once `ms` passed without it settling. */
  bound<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = { at: performance.now() + this.ms, reject };
      if (this.waiting.size === 0) {
        if (this.timer === undefined) this.timer = setTimeout(this.expire, this.ms);
        else this.timer.ref();
      }
      this.waiting.add(entry);
      work.then(
        (value) => {
          this.settle(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.settle(entry);
          reject(isUnavailableError(error) ? translated(error) : error);
        },
      );
    });
  }

  private settle(entry: Waiting): void {
    if (this.waiting.delete(entry) && this.waiting.size === 0) this.timer?.unref();
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (const entry of this.waiting) {
      if (entry.at > now) {
        this.timer = setTimeout(this.expire, entry.at - now);
        return;
      }
      this.waiting.delete(entry);
      entry.reject(unanswered(this.ms));
    }
  };
}

function guardPromise<T>(result: Promise<T>, deadlines: CallDeadlines | undefined): Promise<T> {
  return deadlines === undefined ? result.then(undefined, translate) : deadlines.bound(result);
}

async function* guardIterable<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (error) {
    translate(error);
  }
}

/** The methods of `target`, each translating the connection errors of what it returns. */
function guardMethods<T extends object>(target: T, deadlines: CallDeadlines): T {
  const guarded: Record<string, unknown> = { ...(target as Record<string, unknown>) };
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== 'function') continue;
    const bounded = UNBOUNDED.has(name) ? undefined : deadlines;
    guarded[name] = (...args: unknown[]) => {
      const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
      if (result instanceof Promise) return guardPromise(result, bounded);
      if (isAsyncIterable(result)) return guardIterable(result);
      return result;
    };
  }
  return guarded as T;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** The store with connection errors as `unavailable`, its TTL store included. */
export function withUnavailableErrors(store: StoreAdapter): StoreAdapter {
  const requestReads = store.requestReads?.bind(store);
  const deadlines = new CallDeadlines(CALL_DEADLINE_MS);
  return {
    ...guardMethods(store, deadlines),
    ttl: guardMethods(store.ttl, deadlines),
    ...(requestReads === undefined ? {} : { requestReads: (instanceId: string) => guardMethods(requestReads(instanceId), deadlines) }),
  };
}
