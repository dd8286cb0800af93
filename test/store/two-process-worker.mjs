// A second (third) OS process for two-process.test.ts: opens the same store (an LMDB
// directory, or a PostgreSQL schema) through the compiled adapter, waits for "go", then either
// appends to one shared stream with retry on conflict, races ttl.take over a list of keys, or
// writes rows of new shapes beside the other process (msgpack shared structures, LMDB).
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

/** A row whose shape (property names) depends on the writer and i: new msgpack structures in both processes at once (two-process.test.ts has the same). */
function shapedRow(writer, i) {
  return { by: writer, [`${writer}_${i % 40}`]: i, nested: { [`k${i % 7}_${writer}`]: `${writer}-${i}` } };
}

/**
 * Appends rows of new shapes to its own streams while the other process does the same, then
 * reads back the other writer's rows written so far (shapes this process has never encoded):
 * counts those found and those that differ from what the other wrote.
 */
async function shapesLoop(store, other) {
  for (let i = 0; i < count; i += 1) {
    const result = await store.append({
      instanceId: INSTANCE,
      createdAt: Date.now(),
      expectations: [{ aggregateType: 'shape', aggregateId: `${name}-${i}`, expectedVersion: 0 }],
      events: [{ aggregateType: 'shape', aggregateId: `${name}-${i}`, type: 'shape.added', owner: { type: 'instance', id: INSTANCE }, creator: name, payload: shapedRow(name, i) }],
      project: () => [{ table: 'shapes', id: `${name}-${i}`, value: shapedRow(name, i) }],
    });
    if (!result.ok) throw new Error(`unexpected result ${JSON.stringify(result)}`);
  }
  let found = 0;
  let differ = 0;
  for (let i = 0; i < count; i += 1) {
    const row = await store.getRecord(INSTANCE, 'shapes', `${other}-${i}`);
    if (row === undefined) continue;
    found += 1;
    if (JSON.stringify(row) !== JSON.stringify(shapedRow(other, i))) differ += 1;
  }
  return { found, differ };
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
const result = mode === 'append' ? await appendLoop(store) : mode === 'shapes' ? await shapesLoop(store, process.argv[6]) : await takeLoop(store);
await store.close();
process.send({ done: true, ...result }, () => process.exit(0));
