// A counting worker thread of shared-rate-table.test.ts: waits at the start line (one shared
// Int32 the test sets to 1), then consumes `times` events of one key through the compiled
// shared table and reports how many were allowed and refused.
import { parentPort, workerData } from 'node:worker_threads';
import { sharedCounters } from '../../dist/src/cluster/shared-rate-table.js';

const counter = sharedCounters(workerData.table, { workers: 2 })('client', workerData.rate, 'node');
const start = new Int32Array(workerData.start);
Atomics.add(start, 1, 1);
Atomics.wait(start, 0, 0);
let allowed = 0;
let refused = 0;
for (let i = 0; i < workerData.times; i++) {
  await counter.consume(workerData.key).then(
    () => allowed++,
    () => refused++,
  );
}
parentPort.postMessage({ allowed, refused });
