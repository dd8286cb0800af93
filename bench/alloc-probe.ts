/**
 * Preloaded into the Tessera node by bench/alloc-study.ts (`--expose-gc --import <this file>`):
 * the first SIGUSR2 starts a measurement, the next one stops it and writes the result beside the
 * node's data, as `<TESSERA_DATA_DIR>/alloc-<n>.json`. Measured between the two: the bytes the
 * JS heap allocated (the heap used at the stop, less the heap used at the start after a full GC,
 * plus what every GC in between freed: `v8.GCProfiler`), and where (the sampling heap profiler,
 * with objects collected by minor and major GCs kept, so every allocation counts, not only
 * survivors), and what each scavenge kept: the bytes it promoted (growth of the old generation's
 * spaces across it) and the bytes it left in the young generation. `ALLOC_SURVIVORS=1` samples
 * only objects that survived a scavenge (minor-GC garbage excluded, major-GC garbage kept).
 * Bench-only; never part of the server.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { GCProfiler, getHeapStatistics } from 'node:v8';

const SAMPLING_INTERVAL = Number(process.env.ALLOC_SAMPLING_INTERVAL ?? 512);
const SURVIVORS_ONLY = process.env.ALLOC_SURVIVORS === '1';
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);
const OLD_SPACES = new Set(['old_space', 'code_space', 'map_space', 'large_object_space']);

type SpaceStatistics = readonly { readonly spaceName: string; readonly spaceUsedSize: number }[];
const usedIn = (spaces: SpaceStatistics, names: ReadonlySet<string>): number => spaces.reduce((sum, space) => (names.has(space.spaceName) ? sum + space.spaceUsedSize : sum), 0);

interface Running {
  readonly usedAtStart: number;
  readonly gc: GCProfiler;
  readonly session: Session;
  readonly startedAt: number;
}

let running: Running | undefined;
let count = 0;

function post<T>(session: Session, method: string, params: object = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params, (error, result) => (error === null ? resolve(result as T) : reject(error)));
  });
}

async function start(): Promise<void> {
  const session = new Session();
  session.connect();
  await post(session, 'HeapProfiler.enable');
  (globalThis as { gc?: () => void }).gc?.();
  const gc = new GCProfiler();
  gc.start();
  const usedAtStart = getHeapStatistics().used_heap_size;
  await post(session, 'HeapProfiler.startSampling', { samplingInterval: SAMPLING_INTERVAL, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !SURVIVORS_ONLY });
  running = { usedAtStart, gc, session, startedAt: performance.now() };
}

async function stop(current: Running): Promise<void> {
  running = undefined;
  // The GC profile first: building the sampled profile below allocates megabytes of its own.
  const usedAtStop = getHeapStatistics().used_heap_size;
  const stats = current.gc.stop();
  const { profile } = await post<{ profile: unknown }>(current.session, 'HeapProfiler.stopSampling');
  let freed = 0;
  let scavenges = 0;
  let others = 0;
  const promoted: number[] = [];
  const survived: number[] = [];
  for (const entry of stats?.statistics ?? []) {
    freed += entry.beforeGC.heapStatistics.usedHeapSize - entry.afterGC.heapStatistics.usedHeapSize;
    if (entry.gcType === 'Scavenge' || entry.gcType === 'MinorMarkSweep') {
      scavenges += 1;
      const before = entry.beforeGC.heapSpaceStatistics;
      const after = entry.afterGC.heapSpaceStatistics;
      promoted.push(usedIn(after, OLD_SPACES) - usedIn(before, OLD_SPACES));
      survived.push(usedIn(after, YOUNG_SPACES));
    } else others += 1;
  }
  current.session.disconnect();
  count += 1;
  const file = join(process.env.TESSERA_DATA_DIR ?? '.', `alloc-${count}.json`);
  const result = { allocatedBytes: usedAtStop - current.usedAtStart + freed, scavenges, otherGcs: others, promoted, survived, survivorsOnly: SURVIVORS_ONLY, ms: performance.now() - current.startedAt, samplingInterval: SAMPLING_INTERVAL, profile };
  writeFileSync(file, JSON.stringify(result));
}

process.on('SIGUSR2', () => {
  const current = running;
  const step = current === undefined ? start() : stop(current);
  step.catch((error: unknown) => process.stderr.write(`alloc-probe: ${String(error)}\n`));
});
