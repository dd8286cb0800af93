/**
 * Gives memory back when the thread goes quiet (#13). V8 grows the young generation to its
 * maximum (two 16 MB semi-spaces) while a node starts or serves a burst, and keeps it committed
 * until a memory-reducing collection — which its own heuristics start only after about 100 s
 * without a collection. Every `intervalMs` (10 s) the thread's event-loop utilisation over the
 * last interval is read; after a busy interval, the first two intervals under `idleUtilization`
 * (2 %) each run one full collection. V8 shrinks the young generation (to 1 MB) only when the
 * allocation rate it measured since its previous collection is low: the first quiet collection
 * still counts the tail of the burst and releases the old generation's garbage, the second one
 * sees the quiet rate and shrinks. Nothing runs per request; a busy thread is never collected by
 * this, and an idle one at most twice until it is busy again. An idle thread also waits while the
 * process as a whole is busy (its CPU over the interval at least `busyProcess`, 25 % of one core):
 * a full collection takes tens of ms of CPU and V8's helper threads, which all threads of the
 * process share, so an idle worker's collection delays the requests of a busy one on a small
 * machine (bench/README.md "Read tail"). It runs once the whole node is quiet.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleTrimOptions {
  readonly intervalMs?: number;
  /** Event-loop utilisation (0..1) below which an interval counts as idle. */
  readonly idleUtilization?: number;
  /** The utilisation since the previous call (default: performance.eventLoopUtilization); also called right after a collection, to leave it out. */
  readonly utilization?: () => number;
  /** The process's CPU (all threads) since the previous call, in cores (default: process.cpuUsage over the elapsed time). */
  readonly processLoad?: () => number;
  /** Process CPU, in cores, at or above which an idle thread does not collect (default 0.25). */
  readonly busyProcess?: number;
  /** The collection to run (default: a full V8 collection, see fullCollection). */
  readonly collect?: () => void;
}

export interface IdleTrim {
  /** One interval's decision: collects when the interval was idle and fewer than two collections ran since the last busy interval. */
  tick(): void;
  /** Collections run so far. */
  readonly trims: number;
  stop(): void;
}

const COLLECTIONS_PER_QUIET_PERIOD = 2;

/** The trim's state machine without a timer (tests drive `tick`). */
export function createIdleTrim(options: IdleTrimOptions = {}): IdleTrim {
  const threshold = options.idleUtilization ?? 0.02;
  const utilization = options.utilization ?? loopUtilization();
  const collect = options.collect ?? fullCollection();
  const processLoad = options.processLoad ?? processCpu();
  const busyProcess = options.busyProcess ?? 0.25;
  // Start-up itself is the first busy period: the first idle intervals after it collect.
  let collectedSinceBusy = 0;
  let trims = 0;
  return {
    tick() {
      // Both read on every tick, so each reading covers one interval.
      const threadBusy = utilization() >= threshold;
      const processBusy = processLoad() >= busyProcess;
      if (threadBusy) {
        collectedSinceBusy = 0;
        return;
      }
      if (collectedSinceBusy >= COLLECTIONS_PER_QUIET_PERIOD || processBusy) return;
      collectedSinceBusy++;
      trims++;
      collect();
      // The collection's own time (up to a few hundred ms) is not load: the next interval starts after it.
      utilization();
      processLoad();
    },
    get trims() {
      return trims;
    },
    stop() {},
  };
}

/** Starts the trim on this thread; the timer does not keep the process alive. */
export function startIdleTrim(options: IdleTrimOptions = {}): IdleTrim {
  const trim = createIdleTrim(options);
  const timer = setInterval(() => trim.tick(), options.intervalMs ?? 10_000);
  timer.unref();
  return {
    tick: () => trim.tick(),
    get trims() {
      return trim.trims;
    },
    stop: () => clearInterval(timer),
  };
}

function processCpu(): () => number {
  let lastMicros = cpuMicros();
  let lastAt = performance.now();
  return () => {
    const micros = cpuMicros();
    const at = performance.now();
    const cores = (micros - lastMicros) / 1000 / Math.max(1, at - lastAt);
    lastMicros = micros;
    lastAt = at;
    return cores;
  };
}

/** The process's CPU so far (user + system), µs. */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

/**
 * A full, synchronous V8 collection. Node has no API for one without `--expose-gc`; the flag is
 * set for the moment it takes to create one scratch context, whose `gc` function is kept, and
 * unset again, so no `gc` global appears in this thread's own context (nor in later contexts).
 * The flag is process-wide: when another thread unset it in between, no `gc` is found and the
 * next collection tries again (the function is fetched on first use, not at start).
 */
export function fullCollection(): () => void {
  let gc: (() => void) | undefined;
  return () => {
    gc ??= exposedGc();
    gc?.();
  };
}

function exposedGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  try {
    const found: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    return typeof found === 'function' ? (found as () => void) : undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
