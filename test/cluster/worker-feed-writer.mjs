// The writing worker thread of worker-feed.test.ts: opens the same LMDB directory through the
// compiled adapter, joins the same worker feed, and on each message appends one org (or puts
// one TTL row) through the wrapped store, then reports it done.
import { parentPort, workerData } from 'node:worker_threads';
import { openLmdbStore } from '../../dist/src/store/lmdb-store.js';
import { joinWorkerFeed } from '../../dist/src/cluster/worker-feed.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const feed = joinWorkerFeed({ ...workerData.link, index: 1 }, silent);
const store = feed.wrap(openLmdbStore({ path: workerData.path, noSync: workerData.noSync === true }));
parentPort.on('message', async (message) => {
  if (message.kind === 'stop') {
    await store.close();
    feed.close();
    parentPort.close();
    return;
  }
  if (message.kind === 'ttl') {
    await store.ttl.put('inst', 'codes', message.id, { code: message.id }, Date.now() + 60_000);
  } else {
    await store.append({
      instanceId: 'inst',
      createdAt: Date.now(),
      expectations: [{ aggregateType: 'org', aggregateId: message.id, expectedVersion: 0 }],
      events: [{ aggregateType: 'org', aggregateId: message.id, type: 'org.added', owner: { type: 'instance', id: 'inst' }, creator: 'w1', payload: {} }],
      project: () => [{ table: 'orgs', id: message.id, value: { name: message.id } }],
    });
  }
  parentPort.postMessage('done');
});
