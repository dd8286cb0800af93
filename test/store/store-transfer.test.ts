/**
 * Whole-store copies across adapters (what `tessera copy-store` runs): LMDB → PostgreSQL →
 * LMDB keeps every entry (events with positions, heads, counters, rows, claims, live TTL rows,
 * meta), and each copy answers reads and takes appends exactly as the original. Skipped, with
 * the reason, when TESSERA_TEST_DATABASE_URL is unset or the server does not answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreAdapter } from '../../actors/index.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from './postgres-test-db.js';
import { canonicalDump, expectAppendsContinue, expectSameAnswers, fillForDump } from './store-suite.js';
import { tempDir } from '../temp-dirs.js';

const postgresVerdict = await meet(POSTGRES);
const title = 'copying a whole store between LMDB and PostgreSQL';

describeIfMet(postgresVerdict, title, () => {
  const stores: StoreAdapter[] = [];
  const schemas: string[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await Promise.all(schemas.splice(0).map(dropSchema));
  });
  const lmdb = () => {
    const store = openLmdbStore({ path: tempDir('tessera-transfer-') });
    stores.push(store);
    return store;
  };
  const postgres = async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const store = await openPostgresStore({ url: TEST_DATABASE_URL ?? '', schema, maxConnections: 4 });
    stores.push(store);
    return store;
  };

  it('LMDB → PostgreSQL → LMDB keeps every entry, and each copy answers and appends like the original', async () => {
    const now = Date.now();
    const original = lmdb();
    await fillForDump(original, now);
    const dumped = await canonicalDump(original, now);
    expect(new Set(dumped.map((e) => e.kind))).toEqual(new Set(['event', 'head', 'position', 'record', 'unique', 'ttl', 'meta']));

    const onPg = await postgres();
    await onPg.load(original.dump({ now }));
    expect(await canonicalDump(onPg, now)).toEqual(dumped);
    const back = lmdb();
    await back.load(onPg.dump({ now }));
    expect(await canonicalDump(back, now)).toEqual(dumped);

    await expectSameAnswers(onPg, original);
    await expectSameAnswers(back, original);
    await expectAppendsContinue(onPg);
    await expectAppendsContinue(back);
  });

  it('refuses to load into a non-empty PostgreSQL schema or LMDB directory', async () => {
    const original = lmdb();
    await fillForDump(original);
    const onPg = await postgres();
    await onPg.load(original.dump());
    const again = lmdb();
    await again.putMeta('in-use', true);
    await expect(onPg.load(again.dump())).rejects.toThrow('not empty');
    await expect(again.load(onPg.dump())).rejects.toThrow('not empty');
    expect(await again.readEvents('inst-a', 0, 10)).toEqual([]);
  });
});
