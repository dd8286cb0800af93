/**
 * Preloaded into the Tessera node by bench/background-passes.ts (`--import <this file>`): a
 * 1 ms timer on the node's main thread notes every gap between two of its ticks longer than
 * `STALL_PROBE_MIN_MS` (2 ms): how long the loop ran something else, a pass or a request, before
 * it came back to its timers. At SIGUSR2 it writes the gaps since start as
 * `<TESSERA_DATA_DIR>/stalls-<pid>.json` (ms from the probe's start, ms of the gap). The timer
 * itself costs about a microsecond a tick. Bench-only; never part of the server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const MIN_MS = Number(process.env.STALL_PROBE_MIN_MS ?? 2);
const started = performance.now();
const stalls: [number, number][] = [];
let last = started;
const timer = setInterval(() => {
  const now = performance.now();
  // A tick is due 1 ms after the previous one: what is beyond that the loop spent elsewhere.
  const gap = now - last - 1;
  if (gap > MIN_MS) stalls.push([Math.round(last - started), Math.round(gap * 100) / 100]);
  last = now;
}, 1);
timer.unref();

process.on('SIGUSR2', () => {
  const dir = process.env.TESSERA_DATA_DIR ?? '.';
  writeFileSync(join(dir, `stalls-${process.pid}.json`), JSON.stringify(stalls));
});
