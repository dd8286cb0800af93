// A second (third) OS process for two-process.test.ts: opens the same store (an LMDB
// directory, or a PostgreSQL schema) through the compiled adapter, waits for "go", then either
// appends to one shared stream with retry on conflict, or races ttl.take over a list of keys.
// Reports its results over IPC. The store argument is JSON: { kind, path } or { kind, url, schema }.
const [mode, storeText, countText, name] = process.argv.slice(2);
const count = Number(countText);
const INSTANCE = 'inst-race';

async function appendLoop(store) {
  let conflicts = 0;
  for (let i = 0; i < count; i += 1) {
    for (;;) {
      const version = await store.streamVersion(INSTANCE, 'counter', 'c1');
      const result = await store.append({
        instanceId: INSTANCE,
        createdAt: Date.now(),
        expectations: [{ aggregateType: 'counter', aggregateId: 'c1', expectedVersion: version }],
        events: [
          {
            aggregateType: 'counter',
            aggregateId: 'c1',
            type: 'counter.incremented',
            owner: { type: 'instance', id: INSTANCE },
            creator: name,
            payload: { i },
          },
        ],
        project: (stored) => [{ table: 'counters', id: 'c1', value: { version: stored[0].version, by: name } }],
      });
      if (result.ok) break;
      if (result.reason !== 'conflict') throw new Error(`unexpected result ${JSON.stringify(result)}`);
      conflicts += 1;
    }
  }
  return { conflicts };
}

async function takeLoop(store) {
  const won = [];
  for (let i = 0; i < count; i += 1) {
    const value = await store.ttl.take(INSTANCE, 'codes', `k${i}`);
    if (value !== undefined) won.push(i);
  }
  return { won };
}

async function openStore(spec) {
  if (spec.kind === 'postgres') {
    const { openPostgresStore } = await import('../../dist/src/store/postgres-store.js');
    return openPostgresStore({ url: spec.url, schema: spec.schema, maxConnections: 2 });
  }
  const { openLmdbStore } = await import('../../dist/src/store/lmdb-store.js');
  return openLmdbStore({ path: spec.path });
}

const store = await openStore(JSON.parse(storeText));
process.send({ ready: true });
await new Promise((resolve) => process.once('message', resolve));
const result = mode === 'append' ? await appendLoop(store) : await takeLoop(store);
await store.close();
process.send({ done: true, ...result }, () => process.exit(0));
