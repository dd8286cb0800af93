/**
 * The PostgreSQL adapter: the shared contract suite (a fresh schema per test), plus what only
 * PostgreSQL has: versioned migrations (idempotent, concurrent), index-only hot paths (EXPLAIN
 * on a few thousand rows), appends racing from two connection pools, key-part validation,
 * reopen durability, injected expiry clock and batched sweeps. Skipped, with the reason, when
 * TESSERA_TEST_DATABASE_URL is unset or the server does not answer.
 */
import { createHash, randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createManualClock, INDEX_CATALOG, numberTerm, type AppendRequest, type IndexWalk, type StoreAdapter, type StoreChange, type UniqueClaim } from '../../actors/index.js';
import { MIGRATIONS } from '../../src/store/postgres-migrations.js';
import {
  countQuery,
  createPgIndexReads,
  IQ,
  pageQuery,
  pageTotalQuery,
  COLUMN_LOOKUP,
  POSITIONED_COLUMN_LOOKUP,
  positionedPageQuery,
  positionedWalkWithSummariesQuery,
  prepared,
  walkQuery,
  walkWithSummariesQuery,
} from '../../src/store/postgres-indexes.js';
import { ACROSS_INSTANCES, ACROSS_TABLES, inlineParams, LISTED_INSTANCES, Q, sqlLiteral } from '../../src/store/postgres-queries.js';
import { createReadCache } from '../../src/store/postgres-read-cache.js';
import { COLUMN_QUERY, EPOCH_QUERY, ROW_COUNT_QUERY } from '../../src/store/postgres-term-columns.js';
import { connectPostgres, migratePostgres, openPostgresStore, type PostgresStoreOptions } from '../../src/store/postgres-store.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from './postgres-test-db.js';
import { startTcpProxy } from '../e2e/tcp-proxy.fixture.js';
import { describeIndexSuite, TEST_CATALOG, thing, writeThings } from './index-suite.js';
import { append, describeStoreSuite, event, expect0 } from './store-suite.js';

const postgresVerdict = await meet(POSTGRES);
const url = TEST_DATABASE_URL ?? '';

describeIfMet(postgresVerdict, 'postgres store', () => {
  const openIndexed = async () => {
    const schema = freshSchemaName();
    const store = await openPostgresStore({ url, schema, maxConnections: 4, catalog: TEST_CATALOG });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await dropSchema(schema);
      },
    };
  };
  describeStoreSuite('postgres', openIndexed);
  describeIndexSuite('postgres', openIndexed);
});

/** A walk's query with its LIKE as main had it before migration 5 (no TEXT_TERM predicate): the EXPLAIN test's control. */
function plainLike(query: { text: string; params: (string | number)[] }): { text: string; params: (string | number)[] } {
  return { text: query.text.replace(" AND term ~ '[^0-9]'", ''), params: query.params };
}

/** `value` as an argument of EXPLAIN EXECUTE (an array as text[]). */
function argument(value: unknown): string {
  return Array.isArray(value) ? `ARRAY[${value.map((v: string) => sqlLiteral(v)).join(', ')}]::text[]` : sqlLiteral(value as string | number);
}

/**
 * The plan a node's connection (`sql`, from connectPostgres) runs for a statement of the store:
 * a prepared statement's generic plan (`params` are what EXPLAIN EXECUTE binds, not planned
 * for), a walk with a LIKE pattern planned for its values, written into its text as the store
 * sends it.
 */
async function nodePlan(sql: postgres.Sql, text: string, params: readonly unknown[]): Promise<string> {
  const lines = async (statement: string) => (await sql.unsafe(statement)).map((r) => String(r['QUERY PLAN'])).join('\n');
  if (!prepared(text)) return lines(`EXPLAIN ${inlineParams(text, params as (string | number)[])}`);
  await sql.unsafe(`PREPARE node_plan AS ${text}`);
  try {
    return await lines(`EXPLAIN EXECUTE node_plan${params.length === 0 ? '' : `(${params.map(argument).join(', ')})`}`);
  } finally {
    await sql.unsafe('DEALLOCATE node_plan');
  }
}

/** A search walk's text and parameters over the `orgs` name index of inst-a. */
function walk(options: Omit<IndexWalk, 'table' | 'index'>): [string, (string | number)[]] {
  const { text, params } = walkQuery('inst-a', { table: 'orgs', index: 'name', ...options });
  return [text, params];
}

describeIfMet(postgresVerdict, 'postgres store specifics', () => {
  const schemas: string[] = [];
  const stores: StoreAdapter[] = [];
  const openAt = async (schema: string, options: Partial<PostgresStoreOptions> = {}) => {
    const store = await openPostgresStore({ url, schema, maxConnections: 4, ...options });
    stores.push(store);
    return store;
  };
  const fresh = async (options: Partial<PostgresStoreOptions> = {}) => {
    const schema = freshSchemaName();
    schemas.push(schema);
    return { schema, store: await openAt(schema, options) };
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await Promise.all(schemas.splice(0).map(dropSchema));
  });
  const admin = postgres(url, { max: 2, onnotice: () => undefined });
  afterAll(() => admin.end({ timeout: 5 }));

  it('applies migrations once: reopening and concurrent migrate runs change nothing', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const results = await Promise.all([migratePostgres({ url, schema }), migratePostgres({ url, schema }), migratePostgres({ url, schema })]);
    const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version;
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, MIGRATIONS.length]);
    expect(results.map((r) => r.version)).toEqual([latest, latest, latest]);
    await openAt(schema);
    expect((await migratePostgres({ url, schema })).applied).toEqual([]);
    const rows = await admin.unsafe(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  /** A schema at `version` as the migrations up to it left it (main's format then), with `entries` rows of index_entries. */
  const schemaAt = async (sql: postgres.Sql, schema: string, version: number, entries: string) => {
    await sql.unsafe(`CREATE SCHEMA "${schema}"`);
    await sql.unsafe('CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
      await sql.unsafe(m.sql);
      await sql.unsafe('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await sql.unsafe(`INSERT INTO index_entries VALUES ${entries}`);
  };
  const trigramIndexes = async (sql: postgres.Sql, schema: string) =>
    (await sql.unsafe("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%trgm' ORDER BY indexname", [schema])).map((r) => `${String(r.indexname)}: ${String(r.indexdef).replace(/^.* USING /, '')}`);
  const textIndexes = [
    expect.stringMatching(/^index_entries_digits_trgm: gin \(term [a-z_]+\.gin_trgm_ops\) WHERE \(term !~ '\[\^0-9\]'::text\)$/),
    expect.stringMatching(/^index_entries_text_trgm: gin \(term [a-z_]+\.gin_trgm_ops\) WHERE \(term ~ '\[\^0-9\]'::text\)$/),
  ];

  it('adds the trigram indexes to a schema of version 3 on upgrade; CONTAINS / ENDS_WITH answer the same before and after', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const sql = postgres(url, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    try {
      await schemaAt(sql, schema, 3, `('inst-a', 'orgs', 'name', 'alpha%_beta', 'r1', 'o1'), ('inst-a', 'orgs', 'name', 'alphaxybeta', 'r2', 'o1'),
        ('inst-a', 'orgs', 'name', 'gamma', 'r3', 'o1')`);
      const reads = createPgIndexReads(sql);
      const answers = async () => ({
        contains: (await reads.readIndex('inst-a', { table: 'orgs', index: 'name', contains: 'pha%_b', limit: 10 })).map((e) => e.id),
        containsPlain: (await reads.readIndex('inst-a', { table: 'orgs', index: 'name', contains: 'pha', limit: 10 })).map((e) => e.id),
        suffix: (await reads.readIndex('inst-a', { table: 'orgs', index: 'name', suffix: '_beta', limit: 10 })).map((e) => e.id),
        count: await reads.countIndex('inst-a', { table: 'orgs', index: 'name', contains: 'amm' }),
      });
      const expected = { contains: ['r1'], containsPlain: ['r1', 'r2'], suffix: ['r1'], count: 1 };
      expect(await trigramIndexes(sql, schema)).toEqual([]);
      expect(await answers()).toEqual(expected);
      const upgraded = await migratePostgres({ url, schema });
      expect({ applied: upgraded.applied, trigramIndex: upgraded.trigramIndex }).toEqual({ applied: [4, 5, 6, 7, 8], trigramIndex: true });
      expect(await trigramIndexes(sql, schema)).toEqual(textIndexes);
      expect(await answers()).toEqual(expected);
      const again = await migratePostgres({ url, schema });
      expect({ applied: again.applied, trigramIndex: again.trigramIndex }).toEqual({ applied: [], trigramIndex: true });
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it('replaces the trigram index of every term by those of text and digit-only terms on upgrade from version 4; the same matches before and after', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const sql = postgres(url, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    try {
      // Text and digit-only terms side by side, in one index and across indexes.
      await schemaAt(sql, schema, 4, `('inst-a', 'orgs', 'name', 'org 12345', 'r1', 'o1'), ('inst-a', 'orgs', 'name', '912345', 'r2', 'o1'),
        ('inst-a', 'orgs', 'name', 'x_12345', 'r3', 'o1'), ('inst-a', 'orgs', 'created', '123456', 'r1', 'o1'), ('inst-a', 'orgs', 'name', 'gamma', 'r4', 'o1')`);
      const reads = createPgIndexReads(sql);
      const ids = async (range: Partial<IndexWalk>) => (await reads.readIndex('inst-a', { table: 'orgs', index: 'name', limit: 10, ...range })).map((e) => e.id);
      const answers = async () => ({
        digits: await ids({ contains: '2345' }),
        text: await ids({ contains: 'g 123' }),
        escaped: await ids({ contains: 'x_1' }),
        digitSuffix: await ids({ suffix: '345' }),
        textSuffix: await ids({ suffix: 'amma' }),
        created: (await reads.readIndex('inst-a', { table: 'orgs', index: 'created', contains: '2345', limit: 10 })).map((e) => e.id),
        count: await reads.countIndex('inst-a', { table: 'orgs', index: 'name', contains: '234' }),
      });
      const expected = { digits: ['r2', 'r1', 'r3'], text: ['r1'], escaped: ['r3'], digitSuffix: ['r2', 'r1', 'r3'], textSuffix: ['r4'], created: ['r1'], count: 3 };
      expect(await trigramIndexes(sql, schema)).toEqual([expect.stringMatching(/^index_entries_term_trgm: gin \(term [a-z_]+\.gin_trgm_ops\)$/)]);
      expect(await answers()).toEqual(expected);
      const upgraded = await migratePostgres({ url, schema });
      expect({ applied: upgraded.applied, trigramIndex: upgraded.trigramIndex }).toEqual({ applied: [5, 6, 7, 8], trigramIndex: true });
      expect(await trigramIndexes(sql, schema)).toEqual(textIndexes);
      expect(await answers()).toEqual(expected);
      const [rows] = await sql.unsafe<{ version: number }[]>('SELECT max(version) AS version FROM schema_migrations');
      expect(Number(rows!.version)).toBe(8);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it('works without pg_trgm when the role may not create it, and uses it once the owner has', { timeout: 60_000 }, async () => {
    const suffix = randomBytes(5).toString('hex');
    const database = `tessera_notrgm_${suffix}`;
    const role = `tessera_plain_${suffix}`;
    const schema = 'tessera';
    const at = (user: string) => {
      const u = new URL(url);
      u.username = user;
      u.pathname = `/${database}`;
      return u.toString();
    };
    await admin.unsafe(`CREATE ROLE ${role} LOGIN`);
    await admin.unsafe(`CREATE DATABASE ${database}`);
    try {
      const owner = postgres(at(new URL(url).username || 'postgres'), { max: 1, onnotice: () => undefined });
      try {
        // The role owns its schema but has no CREATE on the database: CREATE EXTENSION is refused.
        await owner.unsafe(`CREATE SCHEMA ${schema} AUTHORIZATION ${role}`);
        const first = await migratePostgres({ url: at(role), schema });
        expect({ version: first.version, trigramIndex: first.trigramIndex }).toEqual({ version: MIGRATIONS[MIGRATIONS.length - 1]!.version, trigramIndex: false });
        expect(await owner.unsafe("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'")).toEqual([]);
        const store = await openPostgresStore({ url: at(role), schema, maxConnections: 2, catalog: TEST_CATALOG });
        try {
          await writeThings(store, 'inst-a', [thing('t1', 'alpha%_beta', 'o1', 1), thing('t2', 'alphaxybeta', 'o1', 2)]);
          expect((await store.readIndex('inst-a', { table: 'things', index: 'name', contains: 'pha%_b', limit: 10 })).map((e) => e.id)).toEqual(['t1']);
          expect((await store.readIndex('inst-a', { table: 'things', index: 'name', contains: 'pha', limit: 10 })).map((e) => e.id)).toEqual(['t1', 't2']);
        } finally {
          await store.close();
        }
        // The owner may: the next migrate creates the extension and the index.
        const later = await migratePostgres({ url: at(new URL(url).username || 'postgres'), schema });
        expect({ applied: later.applied, trigramIndex: later.trigramIndex }).toEqual({ applied: [], trigramIndex: true });
      } finally {
        await owner.end({ timeout: 5 });
      }
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.unsafe(`DROP ROLE IF EXISTS ${role}`);
    }
  });

  it('answers every hot query from an index in the plan the node runs, never a sequential scan', { timeout: 60_000 }, async () => {
    const { schema, store } = await fresh();
    // Seeded in appends of 250 streams: one append of all 1,500 can pass the store's 8 s call
    // deadline on a loaded machine, and this test is about query plans, not large appends.
    const streams = Array.from({ length: 1500 }, (_, i) => `s${i}`);
    for (const instanceId of ['inst-a', 'inst-b']) {
      for (let from = 0; from < streams.length; from += 250) {
        const part = streams.slice(from, from + 250);
        await store.append(
          append(instanceId, {
            expectations: part.map((s) => expect0('org', s)),
            events: part.flatMap((s) => [event('org', s, 'org.added'), event('org', s, 'org.changed')]),
            project: () => Array.from({ length: 500 }, (_, i) => ({ table: (from * 2 + i) % 2 ? 'orgs' : 'users', id: `r${from * 2 + i}`, value: { i: from * 2 + i } })),
          }),
        );
      }
    }
    await admin.unsafe(`INSERT INTO "${schema}".unique_claims SELECT i, 'org.name', 'v' || g, 'h' || g
      FROM generate_series(1, 3000) g, unnest(ARRAY['inst-a', 'inst-b']) i`);
    await admin.unsafe(`INSERT INTO "${schema}".ttl_rows SELECT i, 'codes', 'k' || g, '\\x00'::bytea, $1::bigint + g
      FROM generate_series(1, 3000) g, unnest(ARRAY['inst-a', 'inst-b']) i`, [Date.now()]);
    await admin.unsafe(`INSERT INTO "${schema}".instance_positions SELECT 'inst-' || g, g, g FROM generate_series(1, 3000) g`);
    await admin.unsafe(`INSERT INTO "${schema}".index_entries SELECT i, 'orgs', x, 'n' || lpad(g::text, 5, '0'), 'r' || g, 'o' || (g % 7)
      FROM generate_series(1, 3000) g, unnest(ARRAY['inst-a', 'inst-b']) i, unnest(ARRAY['name', 'created']) x`);
    // A text index of 30,000 names (md5 words: varied trigrams, as names and emails have).
    await admin.unsafe(`INSERT INTO "${schema}".index_entries SELECT 'inst-a', 'orgs', 'text', 'w' || md5(g::text) || ' xyz', 't' || g, 'o1'
      FROM generate_series(1, 30000) g`);
    // A digit-only index of 30,000 numbers (ids, timestamps), sharing digit trigrams with the text terms.
    await admin.unsafe(`INSERT INTO "${schema}".index_entries SELECT 'inst-a', 'orgs', 'numbers', (1000000000 + (g::bigint * 7919) % 1000003)::text, 't' || g, 'o1'
      FROM generate_series(1, 30000) g`);
    await admin.unsafe(`INSERT INTO "${schema}".row_summaries SELECT i, 'r' || g, 'orgs', 'o' || (g % 7), '\\x00'::bytea
      FROM generate_series(1, 3000) g, unnest(ARRAY['inst-a', 'inst-b']) i`);
    await admin.unsafe(`INSERT INTO "${schema}".row_counts SELECT i, 't' || g, 'o1', g FROM generate_series(1, 3000) g, unnest(ARRAY['inst-a', 'inst-b']) i`);
    // Rows of the listed tables in a few of 3,000 instances (the pending messages of some, the executions of fewer).
    await admin.unsafe(`INSERT INTO "${schema}".records SELECT 'inst-' || g, t, 'm' || g, '\\x00'::bytea
      FROM generate_series(1, 3000) g, unnest(ARRAY['outbox_messages', 'executions']) t WHERE g % (CASE t WHEN 'executions' THEN 300 ELSE 30 END) = 0`);
    // 3,000 rows of the table whose indexes key maintenance reads across instances, their times
    // spread over 97 values (in the two instances the other rows have, so the other plans keep their estimates).
    await admin.unsafe(`INSERT INTO "${schema}".index_entries SELECT i, 'web_keys', x, lpad((g % 97)::text, 16, '0'), 'k' || g, ''
      FROM generate_series(1, 1500) g, unnest(ARRAY['inst-a', 'inst-b']) i, unnest(ARRAY['active_since', 'retired_since']) x`);
    // Statistics from every row of index_entries (ANALYZE samples 300 rows per unit of the
    // target, 30,000 by default, fewer than its 72,000): with a sample, the estimates of a
    // digit-only pattern below changed from one ANALYZE to the next, and with them its plan.
    await admin.unsafe(`ALTER TABLE "${schema}".index_entries ALTER COLUMN term SET STATISTICS 1000`);
    await admin.unsafe(`INSERT INTO "${schema}".index_epochs SELECT i, t, md5(i || t) FROM unnest(ARRAY['inst-a', 'inst-b']) i, unnest(ARRAY['orgs', 'users']) t
      UNION ALL SELECT 'inst-' || g, 'orgs', md5(g::text) FROM generate_series(1, 3000) g`);
    for (const table of ['events', 'stream_heads', 'records', 'unique_claims', 'ttl_rows', 'instance_positions', 'index_entries', 'row_summaries', 'row_counts', 'index_epochs']) {
      await admin.unsafe(`ANALYZE "${schema}".${table}`);
    }
    const hot: [string, string, (string | number)[]][] = [
      ['append head check / streamVersion', Q.head, ['inst-a', 'org', 's7']],
      ['append head checks of a batch', Q.heads, ['inst-a', ['org', 'org'] as never, ['s7', 's8'] as never]],
      ['append claim checks of a batch', Q.holders, ['inst-a', ['org.name', 'org.name'] as never, ['v42', 'v43'] as never]],
      ['projectionState', Q.counter, ['inst-a']],
      ['readEvents', Q.readEvents, ['inst-a', 1500, 100]],
      ['readStream', Q.readStream, ['inst-a', 'org', 's7']],
      ['getRecord', Q.getRecord, ['inst-a', 'orgs', 'r11']],
      ['rows and heads of a group of aggregates', Q.aggregates, ['inst-a', ['orgs', 'users'] as never, ['org', 'org'] as never, ['r11', 's7'] as never]],
      ['scanRecords page', Q.scanRecordsNext, ['inst-a', 'orgs', 256, 'r5']],
      ['findUnique', Q.findUnique, ['inst-a', 'org.name', 'v42']],
      ['scanUnique page', Q.scanUniqueNext, ['inst-a', 'org.name', 256, 'v5']],
      ['ttl get', Q.ttlGet, ['inst-a', 'codes', 'k42', Date.now()]],
      ['ttl take', Q.ttlTake, ['inst-a', 'codes', 'k42']],
      ['ttl delete', Q.ttlDelete, ['inst-a', 'codes', 'k42']],
      ['ttl sweep batch', Q.ttlSweep, [Date.now(), 500]],
      ...[...LISTED_INSTANCES].map(([table, [, next]]): [string, string, (string | number)[]] => [`instances with rows of ${table}`, next, [256, 'inst-a']]),
      ...[...ACROSS_INSTANCES].flatMap(([table, [first, next]]): [string, string, (string | number)[]][] => [
        [`across instances of ${table}, first page`, first, ['active_since', numberTerm(40), 256]],
        [`across instances of ${table}, next page`, next, ['active_since', numberTerm(40), 256, numberTerm(7), 'inst-a', 'k1000']],
      ]),
      ['search walk, first page', ...walk({ limit: 10 })],
      ['search walk, reversed after a cursor', ...walk({ limit: 10, reverse: true, after: { term: 'n01500', id: 'r1500' } })],
      ['search walk, one term', ...walk({ limit: 10, equals: 'n00042' })],
      ['search walk, prefix with offset', ...walk({ limit: 10, prefix: 'n001', offset: 20 })],
      ['search walk, contains (index keys only)', ...walk({ limit: 10, contains: '42' })],
      ['search walk, suffix after a cursor', ...walk({ limit: 10, suffix: '7', after: { term: 'n01500', id: 'r1500' } })],
      ['search count, prefix', countQuery('inst-a', { table: 'orgs', index: 'name', prefix: 'n001' }).text, countQuery('inst-a', { table: 'orgs', index: 'name', prefix: 'n001' }).params],
      ['row counts', IQ.rowCounts, ['inst-a', 't42']],
      ['summaries', IQ.summaries, ['inst-a', 'orgs', ['r1', 'r2'] as never]],
      ['append summaries with sub-rows', IQ.summariesWithSubRows, ['inst-a', ['r1', 'r2'] as never]],
      ['records by ids', IQ.getRecords, ['inst-a', 'orgs', ['r1', 'r2'] as never]],
      ['search page with rows and count', pageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10 }).text, pageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10 }).params],
      ['search page of the scopes that are rows, with rows and count', pageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10, scopeRows: 'users' }).text, pageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10, scopeRows: 'users' }).params],
      ['page count of the scopes that are rows', pageTotalQuery('inst-a', { table: 't42', scopeRows: 'users' }).text, pageTotalQuery('inst-a', { table: 't42', scopeRows: 'users' }).params],
      ['search walk with summaries', walkWithSummariesQuery('inst-a', { table: 'orgs', index: 'name', equals: 'n00042', limit: 2000 }).text, walkWithSummariesQuery('inst-a', { table: 'orgs', index: 'name', equals: 'n00042', limit: 2000 }).params],
      ['search walk with summaries and the first rows', ...(() => {
        const q = walkWithSummariesQuery('inst-a', { table: 'orgs', index: 'name', prefix: 'n001', limit: 2000, rows: 10 });
        return [q.text, q.params] as [string, (string | number)[]];
      })()],
      ['index epoch', EPOCH_QUERY, ['inst-a', 'orgs']],
      ['row count before a term column is read', ROW_COUNT_QUERY, ['inst-a', 't42']],
      ['term column of an index with its epoch', COLUMN_QUERY, ['inst-a', 'orgs', 'text', 'orgs', 200_001]],
      ['term column lookup: summaries, the first rows and the epoch', COLUMN_LOOKUP, ['inst-a', 'orgs', 'orgs', ['r1', 'r2', 'r3'] as never, ['r1'] as never]],
    ];
    // Every table the catalog keeps an index of across instances has its statements (and migration 7's partial index).
    expect(INDEX_CATALOG.tables.filter((t) => t.indexes.some((i) => i.acrossInstances === true)).map((t) => t.table)).toEqual(ACROSS_TABLES);
    // The node's own connection settings: its prepared statements run their generic plans.
    const sql = connectPostgres({ url, schema, maxConnections: 1 });
    try {
      for (const [name, query, params] of hot) {
        if (name.startsWith('search walk')) expect(query, name).toMatch(/ORDER BY term( DESC)?, id/);
        expect(prepared(query), name).toBe(true);
        const plan = await nodePlan(sql, query, params);
        expect({ name, seqScan: plan.includes('Seq Scan') }, plan).toEqual({ name, seqScan: false });
        expect(plan, name).toMatch(/Index (Only )?Scan/);
        // The row / summary of each entry is a primary-key lookup by the entry's id, never a join filter.
        if (name.startsWith('search page') || name.startsWith('search walk with')) expect(plan, name).toMatch(/Index Cond: \(.*id = e\.id/);
        if (name.endsWith('the first rows')) expect(plan, name).toMatch(/Index Scan using records_pkey[\s\S]*Index Cond: \(.*id = e\.id/);
        // A column is the index's primary key in order (no sort); its lookups probe by the entry's id.
        if (name.startsWith('term column of')) expect(plan, name).toMatch(/^Limit[\s\S]*Index Only Scan using index_entries_pkey on index_entries/);
        if (name.startsWith('term column of')) expect(plan, name).not.toMatch(/Sort/);
        if (name.startsWith('term column lookup')) {
          expect(plan, name).toMatch(/Index Scan using row_summaries_pkey[\s\S]*Index Cond: \(.*id = w\.id/);
          expect(plan, name).toMatch(/Index Scan using records_pkey[\s\S]*Index Cond: \(.*id = w\.id/);
          expect(plan, name).toMatch(/Index Scan using index_epochs_pkey/);
        }
        // The partial index of the listed tables' rows, never the primary key of every row.
        if (name.startsWith('instances with rows')) expect(plan, name).toMatch(/Index Only Scan using records_listed on records/);
        // The partial index of the entries kept across instances, never the primary key of every entry.
        if (name.startsWith('across instances')) expect(plan, name).toMatch(/Index Only Scan using index_entries_across on index_entries/);
        // Whether a scope is a row comes from the records' primary key alone (never their values):
        // for the page's entries a lookup by the entry's scope, so the walk stops at its limit;
        // for the count a lookup per counted scope or a merge of the two key ranges.
        if (name.includes('scopes that are rows')) {
          expect(plan, name).toMatch(/Index Only Scan using records_pkey on records o/);
          expect(plan, name).not.toMatch(/ Index Scan using records_pkey on records o/);
        }
        if (name.startsWith('search page of the scopes')) {
          expect(plan, name).toMatch(/Index Only Scan using index_entries_pkey[\s\S]*Index Only Scan using records_pkey on records o\s[^\n]*\n\s*Index Cond: \(.*id = index_entries\.scope\)/);
        }
      }
      const explain = async ([query, params]: [string, (string | number)[]]) => nodePlan(sql, query, params);
      // The same reads with the instance's position (a request's first search page, its check
      // in the same statement): the position row by its primary key, joined without a condition
      // (a nested loop over its one row, so the rows keep their order), and every node of the
      // plain statement's plan still there (plan nodes and conditions, without costs and numbering).
      const nodes = (plan: string) =>
        plan
          .split('\n')
          .map((line) => line.replace(/^\s*(->\s*)?/, '').replace(/\s*\(cost=[^)]*\)/, '').replace(/(InitPlan|SubPlan) \d+( \(returns \$\d+\))?/, '$1').replace(/\$\d+/g, '$'))
          .sort();
      const positioned: [string, { text: string; params: (string | number)[] }, { text: string; params: (string | number)[] }][] = [
        ['page', pageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10 }), positionedPageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10 })],
        ['page of the scopes that are rows', pageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10, scopeRows: 'users' }), positionedPageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10, scopeRows: 'users' })],
        ['walk with summaries, reversed', walkWithSummariesQuery('inst-a', { table: 'orgs', index: 'name', prefix: 'n001', limit: 2000, reverse: true }), positionedWalkWithSummariesQuery('inst-a', { table: 'orgs', index: 'name', prefix: 'n001', limit: 2000, reverse: true })],
        ['walk with summaries and the first rows', walkWithSummariesQuery('inst-a', { table: 'orgs', index: 'name', equals: 'n00042', limit: 2000, rows: 10 }), positionedWalkWithSummariesQuery('inst-a', { table: 'orgs', index: 'name', equals: 'n00042', limit: 2000, rows: 10 })],
        ...(() => {
          const params = ['inst-a', 'orgs', 'orgs', ['r1', 'r2', 'r3'], ['r1']] as never[];
          return [['term column lookup', { text: COLUMN_LOOKUP, params }, { text: POSITIONED_COLUMN_LOOKUP, params }]] as [string, { text: string; params: (string | number)[] }, { text: string; params: (string | number)[] }][];
        })(),
      ];
      for (const [name, plain, withPosition] of positioned) {
        const plan = await explain([withPosition.text, withPosition.params]);
        expect(plan, name).toMatch(/^Nested Loop Left Join[\s\S]*Index Scan using instance_positions_pkey on instance_positions p\s[^\n]*\n\s*Index Cond: \(instance_id = \$1\)/);
        expect(plan, name).not.toMatch(/Seq Scan/);
        const extra = [...nodes(plan)];
        for (const node of nodes(await explain([plain.text, plain.params]))) {
          const at = extra.indexOf(node);
          expect(at, `${name}: ${node}\n${plan}`).toBeGreaterThanOrEqual(0);
          extra.splice(at, 1);
        }
        // Besides: the two joins, the one-row VALUES and the position row's lookup.
        expect(extra.filter((node) => !/^(Nested Loop Left Join|Result|Index Scan using instance_positions_pkey on instance_positions p|Index Cond: \(instance_id = \$\))$/.test(node)), name).toEqual([]);
      }
      // A prefix (STARTS_WITH, with or without case: the `_ci` index) is a range of the primary
      // key, both bounds in the Index Cond; control: one term is an equality there.
      const prefixPlan = await explain(walk({ limit: 10, prefix: 'n001' }));
      expect(prefixPlan).toMatch(/Index Only Scan using index_entries_pkey[\s\S]*Index Cond: \(.*term >= \$4\) AND \(term < \$5\)/);
      expect(prefixPlan).not.toMatch(/Filter:/);
      expect(await explain(walk({ limit: 10, equals: 'n00042' }))).toMatch(/Index Cond: \(.*term = \$4\)/);
      // CONTAINS / ENDS_WITH with a trigram in the pattern: the trigram index of text terms (pg_trgm
      // is there in the test database, migrations 4-5), in the walk and in the walk with summaries;
      // the digit-only terms' index is not read, its entries cannot match a pattern with a letter.
      const md5 = createHash('md5').update('777').digest('hex');
      const word = md5.slice(3, 12);
      const lettered = md5.slice(14, 23); // '02af340cb': letters and digits (`word` is digits only)
      expect(lettered).toMatch(/[a-f]/);
      const text = (range: Partial<IndexWalk>): IndexWalk => ({ table: 'orgs', index: 'text', limit: 2000, ...range });
      for (const [name, range] of [
        ['contains, letters and digits', { contains: lettered }],
        ['ends with', { suffix: `${md5.slice(-6)} xyz` }],
        ['contains, metacharacters escaped', { contains: `${word}%_\\` }],
      ] as const) {
        const plain = walkQuery('inst-a', text(range));
        const plainPlan = await explain([plain.text, plain.params]);
        expect(plainPlan, name).toMatch(/Bitmap Index Scan on index_entries_text_trgm/);
        expect(plainPlan, name).not.toMatch(/index_entries_digits_trgm/);
        const summaries = walkWithSummariesQuery('inst-a', text(range));
        expect(await explain([summaries.text, summaries.params]), name).toMatch(/Bitmap Index Scan on index_entries_text_trgm/);
        // As the store sends it: the values written into the text (one round trip), the same plan.
        expect(await explain([inlineParams(summaries.text, summaries.params), []]), name).toMatch(/Bitmap Index Scan on index_entries_text_trgm/);
      }
      // A digit-only pattern may match terms of both sets: both indexes, one bitmap.
      const digits = walkQuery('inst-a', { table: 'orgs', index: 'numbers', contains: '1000123', limit: 2000 });
      expect(await explain([digits.text, digits.params])).toMatch(
        /BitmapOr[\s\S]*Bitmap Index Scan on index_entries_text_trgm[\s\S]*Bitmap Index Scan on index_entries_digits_trgm/,
      );
      // Control: the same LIKE without the text index's predicate cannot use that partial index
      // (the planner needs the predicate stated), so the walk states it.
      const bare = plainLike(walkQuery('inst-a', text({ contains: lettered })));
      expect(bare.text).not.toContain("term ~ '[^0-9]'");
      expect(await explain([bare.text, bare.params])).not.toMatch(/index_entries_text_trgm/);
      // Controls: a pattern without three letters or digits in a row has no trigram, and one
      // matching every entry walks the primary key in order (the planner sees the pattern).
      const short = walkQuery('inst-a', text({ contains: '7a' }));
      const shortPlan = await explain([short.text, short.params]);
      expect(shortPlan).not.toMatch(/_trgm/);
      expect(shortPlan).toMatch(/Index Only Scan using index_entries_pkey[\s\S]*Filter: \(strpos/);
      const everyEntry = walkQuery('inst-a', text({ limit: 10, contains: 'xyz' }));
      const everyPlan = await explain([everyEntry.text, everyEntry.params]);
      expect(everyPlan).not.toMatch(/_trgm/);
      expect(everyPlan).toMatch(/Index Only Scan using index_entries_pkey[\s\S]*Filter: \(\(term ~~ '%xyz%'/);
      expect(await explain([inlineParams(everyEntry.text, everyEntry.params), []])).toMatch(/Index Only Scan using index_entries_pkey[\s\S]*Filter: \(\(term ~~ '%xyz%'/);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it("runs a search page's generic plan, its row counts read by key, where a default connection plans it at every execution", { timeout: 60_000 }, async () => {
    const { schema } = await fresh();
    // As a node's schema has them at 100,000 organizations: one table counted per scope (an
    // organization's domains), the others in a row or a few, all of one instance: the generic
    // plan estimates `instance_id = $1 AND table_name = $2` as a third of row_counts.
    await admin.unsafe(`INSERT INTO "${schema}".row_counts SELECT 'inst-a', 'org_domains', 'o' || g, 1 FROM generate_series(1, 50000) g`);
    await admin.unsafe(`INSERT INTO "${schema}".row_counts SELECT 'inst-a', 'orgs', t, 5 FROM unnest(ARRAY['', 'o1', 'o2']) t`);
    await admin.unsafe(`INSERT INTO "${schema}".row_counts VALUES ('inst-a', 'users', '', 5)`);
    await admin.unsafe(`INSERT INTO "${schema}".index_entries SELECT 'inst-a', 'orgs', 'name', 'n' || g, 'r' || g, '' FROM generate_series(1, 5) g`);
    await admin.unsafe(`INSERT INTO "${schema}".records SELECT 'inst-a', 'orgs', 'r' || g, '\\x00'::bytea FROM generate_series(1, 5) g`);
    // Statistics from every row (ANALYZE samples 30,000 by default), the same estimates at every run.
    await admin.unsafe(`ALTER TABLE "${schema}".row_counts ALTER COLUMN instance_id SET STATISTICS 1000, ALTER COLUMN table_name SET STATISTICS 1000`);
    for (const table of ['row_counts', 'index_entries', 'records']) await admin.unsafe(`ANALYZE "${schema}".${table}`);
    const page = positionedPageQuery('inst-a', { table: 'orgs', index: 'name', limit: 10 });
    /** Runs the page as the store does (a named prepared statement) `times` times; its plans so far. */
    const run = async (sql: postgres.Sql, times: number) => {
      for (let i = 0; i < times; i++) {
        const rows = await sql.unsafe<{ total: string; id: string | null }[]>(page.text, page.params, { prepare: true });
        expect({ total: Number(rows[0]!.total), ids: rows.map((r) => r.id) }).toEqual({ total: 15, ids: ['r1', 'r2', 'r3', 'r4', 'r5'] });
      }
      const [plans] = await sql.unsafe<{ generic_plans: string; custom_plans: string }[]>('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1', [page.text]);
      return { generic: Number(plans!.generic_plans), custom: Number(plans!.custom_plans) };
    };
    const node = connectPostgres({ url, schema, maxConnections: 1 });
    const plain = postgres(url, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    try {
      expect(await run(node, 8)).toEqual({ generic: 8, custom: 0 });
      // Control: with PostgreSQL's defaults the generic plan looks dearer than the custom ones,
      // so every execution is planned for its values.
      expect(await run(plain, 8)).toEqual({ generic: 0, custom: 8 });
      // The row count is read through its primary key (the page's few entries here may be read
      // by a scan: the hot-query test above checks those plans on more rows).
      const plan = await nodePlan(node, page.text, page.params);
      expect(plan).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) row_counts_pkey[\s\S]*Index Cond: \(\(instance_id = \$1\) AND \(table_name = \$2\)\)/);
      expect(plan).not.toMatch(/Seq Scan on row_counts/);
      // Control: the same generic plan with sequential scans allowed reads all of row_counts.
      await plain.unsafe("SET plan_cache_mode = 'force_generic_plan'");
      expect(await nodePlan(plain, page.text, page.params)).toMatch(/Seq Scan on row_counts/);
    } finally {
      await node.end({ timeout: 5 });
      await plain.end({ timeout: 5 });
    }
  });

  it('runs its statements without JIT, where a default connection of the same server compiles them', async () => {
    // Every statement is costed past the threshold here (jit_above_cost 0), so only `jit` decides.
    const jitPlan = async (sql: postgres.Sql) =>
      sql.begin(async (tx) => {
        await tx.unsafe('SET LOCAL jit_above_cost = 0');
        const [setting] = await tx.unsafe<{ jit: string }[]>('SHOW jit');
        const plan = (await tx.unsafe('EXPLAIN (ANALYZE) SELECT sum(g) FROM generate_series(1, 1000) g')).map((r) => String(r['QUERY PLAN'])).join('\n');
        return { jit: setting!.jit, compiled: plan.includes('JIT:') };
      });
    const node = connectPostgres({ url, schema: freshSchemaName(), maxConnections: 1 });
    try {
      expect(await jitPlan(node)).toEqual({ jit: 'off', compiled: false });
    } finally {
      await node.end({ timeout: 5 });
    }
    // Control: on a default connection the same plan is compiled wherever the server can JIT.
    const [available] = await admin.unsafe<{ on: boolean }[]>("SELECT pg_jit_available() AND current_setting('jit') = 'on' AS on");
    expect((await jitPlan(admin)).compiled).toBe(available!.on);
  });

  it("keeps the append's head and claim checks and its summary read primary-key probes in a generic plan on never-analyzed tables", { timeout: 60_000 }, async () => {
    const { schema } = await fresh();
    const rows = async (from: number, to: number) => {
      await admin.unsafe(`INSERT INTO "${schema}".stream_heads SELECT 'inst-a', 'org', 's' || g, 1 FROM generate_series($1::int, $2::int) g`, [from, to]);
      await admin.unsafe(`INSERT INTO "${schema}".unique_claims SELECT 'inst-a', 'org.name', 'v' || g, 'h' || g FROM generate_series($1::int, $2::int) g`, [from, to]);
      await admin.unsafe(`INSERT INTO "${schema}".row_summaries SELECT 'inst-a', 's' || g, 'orgs', '', '\\x00'::bytea FROM generate_series($1::int, $2::int) g`, [from, to]);
    };
    await rows(1, 1000);
    // No ANALYZE, as on a server without autovacuum: the node's prepared statements get their
    // generic plan (its connections force it) while the tables are small, and nothing re-plans
    // it as they grow (an invalidation might, e.g. after other sessions' DDL: so the controls
    // below are checked as made, on the small tables).
    const sql = connectPostgres({ url, schema, maxConnections: 1 });
    try {
      const join = 'SELECT h.aggregate_type, h.aggregate_id, h.version FROM unnest($2::text[], $3::text[]) AS k(t, id) JOIN stream_heads h ON h.instance_id = $1 AND h.aggregate_type = k.t AND h.aggregate_id = k.id';
      const statements = [
        ['heads', Q.heads, `'inst-a', ARRAY['org', 'org'], ARRAY['s7', 's8']`],
        ['holders', Q.holders, `'inst-a', ARRAY['org.name', 'org.name'], ARRAY['v7', 'v8']`],
        ['heads_join', join, `'inst-a', ARRAY['org', 'org'], ARRAY['s7', 's8']`],
      ] as const;
      const plan = async (name: string, params: string) => (await sql.unsafe(`EXPLAIN EXECUTE ${name}(${params})`)).map((r) => String(r['QUERY PLAN'])).join('\n');
      for (const [name, text, params] of statements) {
        await sql.unsafe(`PREPARE ${name}(text, text[], text[]) AS ${text}`);
        await plan(name, params); // the generic plan is made now, on 1,000 rows
      }
      // Control: the same check written as a join gets a plan that reads all of the instance's heads.
      const control = await plan('heads_join', statements[2][2]);
      expect(control).toMatch(/Hash Join/);
      expect(control).toMatch(/Index Cond: \(instance_id = \$1\)$/m); // the index narrows to the instance only
      // The append's summary read is prepared too (postgres-indexes.ts readBeforeSummaries).
      const summaryParams = `'inst-a', ARRAY['s7', 's8']`;
      await sql.unsafe(`PREPARE summaries(text, text[]) AS ${IQ.summariesWithSubRows}`);
      await plan('summaries', summaryParams);
      // Control: the sub-rows' ranges written as a join (the statement before it was prepared).
      const summariesJoin = `SELECT s.table_name, s.id FROM unnest($2::text[]) AS p(id)
        JOIN row_summaries s ON s.instance_id = $1 AND s.id >= (p.id || '/') COLLATE "C" AND s.id < (p.id || '0') COLLATE "C"`;
      await sql.unsafe(`PREPARE summaries_join(text, text[]) AS ${summariesJoin}`);
      expect(await plan('summaries_join', summaryParams)).toMatch(/Index Cond: \(instance_id = \$1\)$/m);
      await rows(1001, 30000);
      const summaries = await plan('summaries', summaryParams);
      expect(summaries).toMatch(/Nested Loop[\s\S]*Index Scan using row_summaries_pkey[\s\S]*Index Cond: \(\(instance_id = \$1\) AND \(id >= p\.id\) AND \(id < /);
      expect(summaries).not.toMatch(/Hash Join|Seq Scan|Bitmap|Materialize/);
      const heads = await plan('heads', statements[0][2]);
      expect(heads).toMatch(/Index Scan using stream_heads_pkey[\s\S]*Index Cond: \(\(instance_id = \$1\) AND \(aggregate_type = k\.t\) AND \(aggregate_id = k\.id\)\)/);
      expect(heads).not.toMatch(/Hash Join|Seq Scan|Bitmap/);
      const holders = await plan('holders', statements[1][2]);
      expect(holders).toMatch(/Index Scan using unique_claims_pkey[\s\S]*Index Cond: \(\(instance_id = \$1\) AND \(scope = k\.scope\) AND \(value = k\.value\)\)/);
      expect(holders).not.toMatch(/Hash Join|Seq Scan|Bitmap/);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it("serves a request's reads from one position check and the cache, and still sees a write made through another pool at the next request", async () => {
    const { schema, store: writer } = await fresh();
    const reader = await openAt(schema);
    const write = async (version: number, value: unknown) => {
      const result = await writer.append(
        append('inst-a', {
          expectations: [expect0('org', 'o1', version)],
          events: [event('org', 'o1', version === 0 ? 'org.added' : 'org.changed')],
          claims: version === 0 ? [{ scope: 'org.name', value: 'acme', holder: 'o1' }] : [],
          project: () => [{ table: 'orgs', id: 'o1', value }],
        }),
      );
      expect(result.ok).toBe(true);
    };
    await write(0, { name: 'acme', n: 1 });
    /** Statements the reader sends for `work`. */
    const counted = async <T>(work: () => Promise<T>): Promise<{ value: T; statements: number }> => {
      const before = reader.statementCount!();
      const value = await work();
      return { value, statements: reader.statementCount!() - before };
    };
    const request = () => reader.requestReads!('inst-a');
    // Control: the first request reads the database (position check, then each row).
    const first = request();
    expect(await counted(async () => [await first.getRecord('inst-a', 'orgs', 'o1'), await first.findUnique('inst-a', 'org.name', 'acme'), await first.getRecord('inst-a', 'orgs', 'gone')])).toEqual({
      value: [{ name: 'acme', n: 1 }, 'o1', undefined],
      statements: 4,
    });
    // The next request: its position check only; the rows, the claim and the absent row from the cache.
    const second = request();
    const got = await counted(async () => [await second.getRecord('inst-a', 'orgs', 'o1'), await second.findUnique('inst-a', 'org.name', 'acme'), await second.getRecord('inst-a', 'orgs', 'gone'), await second.getRecords('inst-a', 'orgs', ['o1', 'gone'])]);
    expect(got).toEqual({ value: [{ name: 'acme', n: 1 }, 'o1', undefined, [{ name: 'acme', n: 1 }, undefined]], statements: 1 });
    // The position check answers projectionState, as the store does.
    expect(await second.projectionState('inst-a')).toEqual(await reader.projectionState('inst-a'));
    // A caller changing what it got changes nothing for the next request.
    (got.value[0] as { n: number }).n = 99;
    expect(await request().getRecord('inst-a', 'orgs', 'o1')).toEqual({ name: 'acme', n: 1 });
    // Another pool (another node) writes: the next request sees it at once.
    await write(1, { name: 'acme', n: 2 });
    const after = request();
    expect(await counted(() => after.getRecord('inst-a', 'orgs', 'o1'))).toEqual({ value: { name: 'acme', n: 2 }, statements: 2 });
    expect(await request().getRecord('inst-a', 'orgs', 'o1')).toEqual({ name: 'acme', n: 2 });
    // Another instance's reads go to the database every time (no check of inst-a's position covers them).
    const other = request();
    expect(await counted(() => other.getRecord('inst-b', 'orgs', 'o1'))).toEqual({ value: undefined, statements: 1 });
    expect(await counted(() => other.getRecord('inst-b', 'orgs', 'o1'))).toEqual({ value: undefined, statements: 1 });
  });

  it("looks up several unique values of a request in one statement, keeps each answer for the next request, and serves the cached ones without a statement", async () => {
    const { schema, store: writer } = await fresh();
    const reader = await openAt(schema);
    const claim = (id: string, value: string, version = 0) =>
      writer.append(append('inst-a', { expectations: [expect0('org', id, version)], events: [event('org', id, 'org.added')], claims: [{ scope: 'org.name', value, holder: id }], project: () => [{ table: 'orgs', id, value: { value } }] }));
    expect((await claim('o1', 'acme')).ok).toBe(true);
    expect((await claim('o2', 'beta')).ok).toBe(true);
    const counted = async <T>(work: () => Promise<T>): Promise<{ value: T; statements: number }> => {
      const before = reader.statementCount!();
      const value = await work();
      return { value, statements: reader.statementCount!() - before };
    };
    const keys = [['org.name', 'beta'], ['org.name', 'nobody'], ['org.name', 'acme'], ['org.name', 'nul\u0000'], ['other.scope', 'acme']] as const;
    const holders = ['o2', undefined, 'o1', undefined, undefined];
    // The position check and one statement for the four valid values (the NUL one is never sent).
    expect(await counted(() => reader.requestReads!('inst-a').findUniques!('inst-a', keys))).toEqual({ value: holders, statements: 2 });
    // The next request: the check only, held and absent answers alike; findUnique sees the same entries.
    const next = reader.requestReads!('inst-a');
    expect(await counted(async () => [await next.findUniques!('inst-a', keys), await next.findUnique('inst-a', 'org.name', 'acme')])).toEqual({ value: [holders, 'o1'], statements: 1 });
    // A new value beside cached ones: one statement for it alone, the answers in order.
    expect(await counted(() => reader.requestReads!('inst-a').findUniques!('inst-a', [['org.name', 'acme'], ['org.name', 'gamma']]))).toEqual({ value: ['o1', undefined], statements: 2 });
    // Another node's write is seen at the next request (a new position: nothing kept is used).
    expect((await claim('o3', 'gamma')).ok).toBe(true);
    expect(await counted(() => reader.requestReads!('inst-a').findUniques!('inst-a', [['org.name', 'acme'], ['org.name', 'gamma']]))).toEqual({ value: ['o1', 'o3'], statements: 2 });
  });

  it("moves the request cache past another node's batch when its notification carried the batch's rows and claims; a batch too large for that is read again in full", async () => {
    const { schema, store: writer } = await fresh();
    const reader = await openAt(schema);
    const heard: StoreChange[] = [];
    await reader.changes!.subscribe((change) => heard.push(change));
    const write = async (request: AppendRequest) => expect((await writer.append(request)).ok).toBe(true);
    /** Until the reader's change feed has handled the notification of `position`. */
    const notified = (position: number) => vi.waitFor(() => expect(heard.at(-1)?.toPosition).toBe(position), { timeout: 5_000, interval: 5 });
    const org = (id: string, version: number, name: string, released?: string, more: UniqueClaim[] = []) =>
      append('inst-a', {
        expectations: [expect0('org', id, version)],
        events: [event('org', id, version === 0 ? 'org.added' : 'org.changed')],
        claims: [{ scope: 'org.name', value: name, holder: id }, ...more],
        ...(released === undefined ? {} : { releases: [{ scope: 'org.name', value: released }] }),
        project: () => [{ table: 'orgs', id, value: { name } }],
      });
    const counted = async (work: () => Promise<unknown[]>): Promise<{ value: unknown[]; statements: number }> => {
      const before = reader.statementCount!();
      const value = await work();
      return { value, statements: reader.statementCount!() - before };
    };
    const reads = () => {
      const view = reader.requestReads!('inst-a');
      return counted(async () => [await view.getRecord('inst-a', 'orgs', 'o1'), await view.getRecord('inst-a', 'orgs', 'o2'), await view.findUnique('inst-a', 'org.name', 'acme'), await view.findUnique('inst-a', 'org.name', 'beta')]);
    };
    await write(org('o1', 0, 'acme'));
    await write(org('o2', 0, 'ajax'));
    await notified(2);
    expect(await reads()).toEqual({ value: [{ name: 'acme' }, { name: 'ajax' }, 'o1', undefined], statements: 5 });
    expect(await reads()).toEqual({ value: [{ name: 'acme' }, { name: 'ajax' }, 'o1', undefined], statements: 1 });
    // The other node renames o2: the reader's next request reads its row and the beta claim, nothing else.
    await write(org('o2', 1, 'beta', 'ajax'));
    await notified(3);
    expect(await reads()).toEqual({ value: [{ name: 'acme' }, { name: 'beta' }, 'o1', 'o2'], statements: 3 });
    expect(await reads()).toEqual({ value: [{ name: 'acme' }, { name: 'beta' }, 'o1', 'o2'], statements: 1 });
    // The control: a batch whose rows and claims do not fit in a notification (300 claims) starts a new generation.
    const aliases = Array.from({ length: 300 }, (_, i) => ({ scope: 'org.alias', value: `alias-${i}-${'x'.repeat(30)}`, holder: 'o1' }));
    await write(org('o1', 1, 'acme', undefined, aliases));
    await notified(4);
    expect(await reads()).toEqual({ value: [{ name: 'acme' }, { name: 'beta' }, 'o1', 'o2'], statements: 5 });
  });

  it("sends a request's position check and the reads it caches as prepared statements (one round trip each once described), a LIKE walk unnamed", async () => {
    const { schema, store } = await fresh();
    const written = await store.append(
      append('inst-a', { expectations: [expect0('org', 'o1', 0)], events: [event('org', 'o1', 'org.added')], claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }], project: () => [{ table: 'orgs', id: 'o1', value: { n: 1 } }] }),
    );
    expect(written.ok).toBe(true);
    // One connection, so pg_prepared_statements (per session) shows what these reads prepared.
    const sql = connectPostgres({ url, schema, maxConnections: 1 });
    try {
      // (postgres.js prepares its own array-type lookup in pg_catalog when it connects.)
      const named = async () => (await sql.unsafe<{ statement: string }[]>("SELECT statement FROM pg_prepared_statements WHERE statement NOT LIKE '%pg_catalog.%'")).map((r) => r.statement);
      expect(await named()).toEqual([]);
      const view = createReadCache(sql).view('inst-a');
      expect([await view.getRecord('inst-a', 'orgs', 'o1'), await view.findUnique('inst-a', 'org.name', 'acme'), await view.getRecords('inst-a', 'orgs', ['o2'])]).toEqual([{ n: 1 }, 'o1', [undefined]]);
      expect((await named()).sort()).toEqual([IQ.getRecords, Q.counter, Q.findUnique, Q.getRecord].sort());
      // Control: a CONTAINS walk is planned for its pattern each time, so it is not prepared.
      const walked = await createPgIndexReads(sql).readIndexWithSummaries!('inst-a', { table: 'orgs', index: 'name', contains: 'acm', limit: 10 });
      expect(walked).toEqual([]);
      expect((await named()).some((text) => text.includes(' LIKE '))).toBe(false);
      expect(await named()).toHaveLength(4);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it("answers a request's position check with its first search page when that comes first: one statement, the same answers, another pool's write seen at the next request", async () => {
    const { schema, store } = await fresh({ catalog: TEST_CATALOG });
    const other = await openAt(schema, { catalog: TEST_CATALOG });
    await writeThings(store, 'inst-a', [thing('t1', 'Alpha', 'o1', 10), thing('t2', 'Beta', 'o1', 20), thing('t3', 'Gamma', 'o2', 30)]);
    const counted = async <T>(work: () => Promise<T>): Promise<{ value: T; statements: number }> => {
      const before = store.statementCount!();
      const value = await work();
      return { value, statements: store.statementCount!() - before };
    };
    const names = (rows: readonly unknown[]) => rows.map((r) => (r as { state: { name: string } }).state.name);
    const page = (view: ReturnType<NonNullable<StoreAdapter['requestReads']>>, walk: Partial<IndexWalk> = {}) =>
      view.readIndexPage!('inst-a', { table: 'things', index: 'name', limit: 2, ...walk });
    // Control: after a position check, the page is its own statement, as on the store (and the row read is kept).
    const checkedFirst = store.requestReads!('inst-a');
    expect(await counted(async () => [await checkedFirst.projectionState('inst-a'), names((await page(checkedFirst)).rows), await checkedFirst.getRecord('inst-a', 'things', 't1')])).toEqual({
      value: [await store.projectionState('inst-a'), ['Alpha', 'Beta'], await store.getRecord('inst-a', 'things', 't1')],
      statements: 3,
    });
    // The page first: one statement, which answers the check as well (projectionState, and the row from the cache).
    const pageFirst = store.requestReads!('inst-a');
    expect(
      await counted(async () => [
        await page(pageFirst, { reverse: true }),
        await pageFirst.projectionState('inst-a'),
        await pageFirst.getRecord('inst-a', 'things', 't1'),
      ]),
    ).toEqual({
      value: [await store.readIndexPage!('inst-a', { table: 'things', index: 'name', limit: 2, reverse: true }), await store.projectionState('inst-a'), await store.getRecord('inst-a', 'things', 't1')],
      statements: 1,
    });
    // A walk with summaries and rows, in walk order, and one past the last entry (the total still counted): one statement each.
    const walk: IndexWalk = { table: 'things', index: 'created', limit: 10, rows: 2, reverse: true };
    expect(await counted(() => store.requestReads!('inst-a').readIndexWithSummaries!('inst-a', walk))).toEqual({ value: await store.readIndexWithSummaries!('inst-a', walk), statements: 1 });
    expect((await store.readIndexWithSummaries!('inst-a', walk)).map((e) => e.id)).toEqual(['t3', 't2', 't1']);
    const past = store.requestReads!('inst-a');
    expect(await counted(async () => [await page(past, { offset: 5 }), await past.projectionState('inst-a')])).toEqual({
      value: [{ entries: [], rows: [], total: 3 }, await store.projectionState('inst-a')],
      statements: 1,
    });
    const none = store.requestReads!('inst-a');
    expect(await counted(async () => [await none.readIndexWithSummaries!('inst-a', { table: 'things', index: 'name', equals: 'Delta', limit: 10 }), await none.projectionState('inst-a')])).toEqual({
      value: [[], await store.projectionState('inst-a')],
      statements: 1,
    });
    // An instance without a position row yet: position 0, as projectionState says.
    expect(await counted(async () => {
      const empty = store.requestReads!('inst-z');
      return [await empty.readIndexPage!('inst-z', { table: 'things', index: 'name', limit: 2 }), await empty.projectionState('inst-z')];
    })).toEqual({ value: [{ entries: [], rows: [], total: 0 }, { position: 0, createdAt: 0 }], statements: 1 });
    // Another pool (another node) renames t1: the next request's page, its position and the cached row are all new.
    await writeThings(other, 'inst-a', [thing('t1', 'Omega', 'o1', 10)]);
    const after = store.requestReads!('inst-a');
    const seen = await counted(async () => [names((await page(after)).rows), await after.projectionState('inst-a'), names([await after.getRecord('inst-a', 'things', 't1')])]);
    expect(seen).toEqual({ value: [['Beta', 'Gamma'], await other.projectionState('inst-a'), ['Omega']], statements: 2 });
  });

  it('sends a LIKE walk in one round trip, its values written as literals, and finds exactly the terms holding quotes, backslashes, dollars and LIKE metacharacters', async () => {
    const { schema, store } = await fresh({ catalog: TEST_CATALOG });
    const names = ['back\\slash', 'cost $1 each', "abc' OR '1'='1", 'plain name', 'ünïcødé ☃ name', '100%_off', '1000 off'];
    await writeThings(store, 'inst-a', names.map((name, i) => thing(`t${i}`, name, 'o1', i)));
    const target = new URL(url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port === '' ? 5432 : target.port));
    const sql = connectPostgres({ url: proxy.url(url), schema, maxConnections: 1 });
    try {
      const reads = createPgIndexReads(sql);
      const ids = async (walk: Partial<IndexWalk>) => (await reads.readIndex('inst-a', { table: 'things', index: 'name', limit: 10, ...walk })).map((e) => e.id);
      expect(await ids({ contains: 'name' })).toEqual(['t3', 't4']); // (connects: startup and authentication are round trips too)
      for (const [walk, expected] of [
        [{ contains: 'ack\\sl' }, ['t0']],
        [{ contains: 'cost $1 e' }, ['t1']],
        [{ contains: "abc' OR '1'='1" }, ['t2']],
        // Were the quote not escaped, this would match every row.
        [{ contains: "zzz' OR 'a'='a" }, []],
        [{ contains: '☃ name' }, ['t4']],
        // `%` and `_` are the pattern's own characters: '1000 off' would match them unescaped.
        [{ contains: '100%_o' }, ['t5']],
        [{ suffix: 't $1 each' }, ['t1']],
        [{ contains: 'name', after: { term: 'plain name', id: 't3' } }, ['t4']],
        [{ contains: 'off', reverse: true, offset: 1 }, ['t5']],
      ] as const) {
        const before = proxy.turns;
        expect(await ids(walk), JSON.stringify(walk)).toEqual(expected);
        expect(proxy.turns - before, JSON.stringify(walk)).toBe(1);
      }
      // The walk with summaries, and its count, alike.
      let before = proxy.turns;
      expect((await reads.readIndexWithSummaries!('inst-a', { table: 'things', index: 'name', contains: "abc' OR", limit: 10, rows: 1 })).map((e) => [e.id, e.summary?.terms[0]])).toEqual([
        ['t2', ["abc' OR '1'='1"]],
      ]);
      expect(await reads.countIndex('inst-a', { table: 'things', index: 'name', contains: 'off' })).toBe(2);
      expect(proxy.turns - before).toBe(2);
      // Control: the same walk's statement with its parameters, unnamed, as it was sent before: two round trips.
      const unnamed = walkQuery('inst-a', { table: 'things', index: 'name', contains: 'cost $1 e', limit: 10 });
      before = proxy.turns;
      expect((await sql.unsafe<{ id: string }[]>(unnamed.text, unnamed.params, { prepare: false })).map((r) => r.id)).toEqual(['t1']);
      expect(proxy.turns - before).toBe(2);
    } finally {
      await sql.end({ timeout: 5 });
      await proxy.close();
    }
  });

  it('writes a parameter as a literal only when it is a string without NUL or a safe integer', () => {
    expect(inlineParams("SELECT $1, $2, $10 WHERE x LIKE '%' AND y = $1", ["it's \\ $2", 42, 'ten', 4, 5, 6, 7, 8, 9, 'z'])).toBe(
      "SELECT E'it''s \\\\ $2', 42, E'z' WHERE x LIKE '%' AND y = E'it''s \\\\ $2'",
    );
    expect(sqlLiteral('')).toBe("E''");
    expect(sqlLiteral(Buffer.from([0, 0xab, 0xff]))).toBe("E'\\\\x00abff'::bytea");
    expect(sqlLiteral(['a', "b'c"])).toBe("ARRAY[E'a', E'b''c']::text[]");
    expect(sqlLiteral([])).toBe("'{}'::text[]");
    for (const bad of ['a\u0000b', 1.5, Number.NaN, 2 ** 60, undefined, ['ok', 'a\u0000b'], { not: 'a value' }]) {
      expect(() => sqlLiteral(bad as string | number | undefined), String(bad)).toThrow();
    }
  });

  it('reads back from PostgreSQL exactly the bytes, lists and strings it wrote as literals', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const list = ["it's", 'back\\slash', '$1 $2', 'ünïcødé ☃', '', 'E\'x\''];
    const text = "quote ' backslash \\ dollar $1 newline \n tab \t";
    const [row] = await admin.unsafe<{ b: Buffer; l: string[]; t: string; n: string; e: string[] }[]>(
      inlineParams('SELECT $1 AS b, $2 AS l, $3::text AS t, $4::bigint AS n, $5 AS e', [bytes, list, text, Number.MAX_SAFE_INTEGER, []]),
    );
    expect(Buffer.compare(row!.b, bytes)).toBe(0);
    expect(row!.l).toEqual(list);
    expect(row!.t).toBe(text);
    expect(String(row!.n)).toBe(String(Number.MAX_SAFE_INTEGER));
    expect(row!.e).toEqual([]);
  });

  it('keeps the cached rows its own append did not write, reads the ones it wrote, and starts over after another pool writes', async () => {
    const { schema, store } = await fresh();
    const other = await openAt(schema);
    const versions = new Map<string, number>();
    const write = async (through: StoreAdapter, id: string, n: number) => {
      const version = versions.get(id) ?? 0;
      const result = await through.append(
        append('inst-a', { expectations: [expect0('org', id, version)], events: [event('org', id, 'org.changed')], project: () => [{ table: 'orgs', id, value: { n } }] }),
      );
      expect(result.ok).toBe(true);
      versions.set(id, version + 1);
    };
    await write(store, 'o1', 1);
    await write(store, 'o2', 1);
    const statements = async (ids: readonly string[]) => {
      const view = store.requestReads!('inst-a');
      const before = store.statementCount!();
      const rows = [];
      for (const id of ids) rows.push(await view.getRecord('inst-a', 'orgs', id));
      return { rows, statements: store.statementCount!() - before };
    };
    expect(await statements(['o1', 'o2'])).toEqual({ rows: [{ n: 1 }, { n: 1 }], statements: 3 });
    await write(store, 'o1', 2);
    // This node's append moved the position: o2 still from the cache, o1 read again (check + o1).
    expect(await statements(['o2', 'o1'])).toEqual({ rows: [{ n: 1 }, { n: 2 }], statements: 2 });
    expect(await statements(['o2', 'o1'])).toEqual({ rows: [{ n: 1 }, { n: 2 }], statements: 1 });
    // Another pool's append: this node cannot know what it wrote, so every row is read again.
    await write(other, 'o2', 2);
    expect(await statements(['o2', 'o1'])).toEqual({ rows: [{ n: 2 }, { n: 2 }], statements: 3 });
  });

  it('sends an append as BEGIN, the lock and its checks, one statement for every write, and COMMIT', async () => {
    const { store } = await fresh({ catalog: TEST_CATALOG });
    const before = store.statementCount!();
    const result = await store.append(
      append('inst-a', {
        expectations: [expect0('thing', 't1'), expect0('thing', 't2')],
        events: [event('thing', 't1', 'thing.set'), event('thing', 't2', 'thing.set')],
        claims: [{ scope: 'thing.name', value: 'one', holder: 't1' }, { scope: 'thing.name', value: 'two', holder: 't2' }],
        project: () => [thing('t1', 'One', 'o1', 10, ['x']), thing('t2', 'Two', 'o1', 20)],
      }),
    );
    expect(result.ok).toBe(true);
    // BEGIN, lock, heads, claims, summaries, the writes, COMMIT — whatever the number of streams, claims and index rows.
    expect(store.statementCount!() - before).toBe(7);
    // Everything was written: events, claims, rows and their index entries, summaries and counts.
    expect((await store.readStream('inst-a', 'thing', 't2')).map((e) => e.version)).toEqual([1]);
    expect(await store.findUnique('inst-a', 'thing.name', 'two')).toBe('t2');
    expect(((await store.getRecord('inst-a', 'things', 't1')) as { state: { name: string } }).state.name).toBe('One');
    expect((await store.readIndex('inst-a', { table: 'things', index: 'name_ci', limit: 10 })).map((e) => e.id)).toEqual(['t1', 't2']);
    expect(await store.rowCounts('inst-a', 'things')).toEqual([{ scope: 'o1', count: 2 }]);
    expect(await store.projectionState('inst-a')).toMatchObject({ position: 2 });
  });

  it('sends an append in two round trips (BEGIN with the lock and its checks, then the writes with COMMIT); a refused write rolls back and hands the connection back', async () => {
    const { schema, store: direct } = await fresh({ catalog: TEST_CATALOG });
    await direct.close();
    const target = new URL(url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port === '' ? 5432 : target.port));
    const store = await openPostgresStore({ url: proxy.url(url), schema, maxConnections: 1, catalog: TEST_CATALOG });
    stores.push(store);
    try {
      const write = (i: number, expectedVersion = 0) =>
        store.append(
          append('inst-a', {
            expectations: [expect0('thing', `t${i}`, expectedVersion)],
            events: [event('thing', `t${i}`, 'thing.set', { blob: 'x'.repeat(2_000) })], // a write over postgres.js's 1 KiB flush
            claims: [{ scope: 'thing.name', value: `name ${i}`, holder: `t${i}` }],
            project: () => [thing(`t${i}`, `Name ${i}`, 'o1', i, ['a'])],
          }),
        );
      for (let i = 0; i < 3; i += 1) expect((await write(i)).ok).toBe(true); // the connection describes its statements once
      for (let i = 3; i < 8; i += 1) {
        const before = proxy.turns;
        expect((await write(i)).ok).toBe(true);
        expect(proxy.turns - before, `append ${i}`).toBe(2);
      }
      // A row the unique (instance, stream, version) index refuses: the write fails, PostgreSQL ends the
      // transaction at COMMIT with a rollback, nothing of it stays, and the pool's one connection is back.
      await admin.unsafe(`INSERT INTO "${schema}".events VALUES ('inst-a', 999, 'thing', 't8', 1, 'thing.set', 'instance', 'inst-a', '', 0, '\\x00'::bytea)`);
      expect(await write(8)).toMatchObject({ ok: false, reason: 'conflict', aggregateId: 't8' });
      expect(await store.findUnique('inst-a', 'thing.name', 'name 8')).toBeUndefined();
      expect(await store.getRecord('inst-a', 'things', 't8')).toBeUndefined();
      expect(await store.projectionState('inst-a')).toMatchObject({ position: 8 });
      expect((await write(9)).ok).toBe(true); // the connection was handed back out of its transaction
      expect(await store.projectionState('inst-a')).toMatchObject({ position: 9 });
      // Control: the same proxy counts postgres.js's own transaction (BEGIN alone, the statement, COMMIT alone) as three.
      const plain = postgres(proxy.url(url), { max: 1, onnotice: () => undefined });
      try {
        await plain`SELECT 1`;
        const before = proxy.turns;
        await plain.begin((tx) => tx`SELECT 1`);
        expect(proxy.turns - before).toBe(3);
      } finally {
        await plain.end({ timeout: 5 });
      }
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it('lets exactly one of two appends with the same expectation from two connection pools win', { timeout: 60_000 }, async () => {
    const { schema, store: one } = await fresh();
    const two = await openAt(schema);
    let version = 0;
    for (let round = 0; round < 25; round += 1) {
      const racer = (store: StoreAdapter, by: string) =>
        store.append(append('inst-r', { expectations: [expect0('org', 'o1', version)], events: [event('org', 'o1', 'org.changed', { by })] }));
      const results = await Promise.all([racer(one, 'one'), racer(two, 'two')]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual([
        { ok: false, reason: 'conflict', aggregateType: 'org', aggregateId: 'o1', actualVersion: version + 1 },
      ]);
      version += 1;
    }
    const log = await two.readEvents('inst-r', 0, 100);
    expect(log.map((e) => [e.position, e.version])).toEqual(Array.from({ length: 25 }, (_, i) => [i + 1, i + 1]));
  });

  it('keeps events, rows, claims, ttl rows and meta across a reopen', async () => {
    const { schema, store } = await fresh();
    const payload = { n: 1, big: 2n ** 60n, map: new Map([['k', 1]]), bytes: Buffer.from([1, 2, 3]), nested: { u: 'é✓' } };
    await store.append(
      append('i', {
        expectations: [expect0('org', 'o1')],
        events: [event('org', 'o1', 'org.added', payload)],
        claims: [{ scope: 's', value: 'v', holder: 'o1' }],
        project: () => [{ table: 't', id: 'o1', value: payload }],
      }),
    );
    await store.ttl.put('i', 'codes', 'c', 'code', Date.now() + 60_000);
    await store.putMeta('k', 'v');
    await store.close();
    const again = await openAt(schema);
    expect(await again.streamVersion('i', 'org', 'o1')).toBe(1);
    expect((await again.readEvents('i', 0, 10)).map((e) => e.payload)).toEqual([payload]);
    expect(await again.getRecord('i', 't', 'o1')).toEqual(payload);
    expect(await again.findUnique('i', 's', 'v')).toBe('o1');
    expect(await again.ttl.get('i', 'codes', 'c')).toBe('code');
    expect(await again.getMeta('k')).toBe('v');
  });

  it('finishes writes started before close', async () => {
    const { schema, store } = await fresh();
    const pending = store.append(append('i', { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added')] }));
    const put = store.ttl.put('i', 'codes', 'c', 1, Date.now() + 60_000);
    await store.close();
    expect((await pending).ok).toBe(true);
    await put;
    const again = await openAt(schema);
    expect(await again.streamVersion('i', 'org', 'o1')).toBe(1);
    expect(await again.ttl.get('i', 'codes', 'c')).toBe(1);
    expect(await again.readEvents('i', 0, Infinity)).toHaveLength(1);
  });

  it('reports a clash on the (instance, stream, version) index as a conflict and writes nothing', async () => {
    const { schema, store } = await fresh();
    // A stray row no append wrote (no head, no position): only the unique index can catch it.
    await admin.unsafe(`INSERT INTO "${schema}".events VALUES ('i', 99, 'org', 'o1', 1, 'org.added', 'instance', 'i', '', 0, '\\x00'::bytea)`);
    const result = await store.append(append('i', { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added')] }));
    expect(result).toEqual({ ok: false, reason: 'conflict', aggregateType: 'org', aggregateId: 'o1', actualVersion: 0 });
    expect(await store.projectionState('i')).toEqual({ position: 0, createdAt: 0 });
  });

  it('rejects events on a stream without an expectation, writing nothing', async () => {
    const { store } = await fresh();
    const request = append('i', { expectations: [expect0('org', 'o1')], events: [event('user', 'u1', 'user.added')] });
    await expect(store.append(request)).rejects.toThrow('no expectation for stream user/u1');
    expect(await store.readEvents('i', 0, 10)).toEqual([]);
    expect(await store.projectionState('i')).toEqual({ position: 0, createdAt: 0 });
  });

  it('rolls back an append whose write fails half way (NUL in a row id)', async () => {
    const { store } = await fresh();
    const request = append('i', {
      expectations: [expect0('org', 'o1')],
      events: [event('org', 'o1', 'org.added')],
      project: () => [
        { table: 't', id: 'fine', value: 1 },
        { table: 't', id: 'bad\u0000id', value: 2 },
      ],
    });
    await expect(store.append(request)).rejects.toThrow('NUL');
    expect(await store.readEvents('i', 0, 10)).toEqual([]);
    expect(await store.getRecord('i', 't', 'fine')).toBeUndefined();
    expect(await store.streamVersion('i', 'org', 'o1')).toBe(0);
    expect(await store.projectionState('i')).toEqual({ position: 0, createdAt: 0 });
  });

  it('answers "absent" for lookups whose key contains NUL, and refuses reserved instance ids', async () => {
    const { store } = await fresh();
    expect(await store.getRecord('i', 't', 'a\u0000b')).toBeUndefined();
    expect(await store.findUnique('i', 's', 'a\u0000b')).toBeUndefined();
    expect(await store.ttl.get('i', 'codes', 'a\u0000b')).toBeUndefined();
    expect(await store.ttl.take('i', 'codes', 'a\u0000b')).toBeUndefined();
    expect(await store.readStream('i', 'org', 'a\u0000b')).toEqual([]);
    await expect(store.streamVersion('~x', 'org', 'o1')).rejects.toThrow('instance id');
    await expect(store.getRecord('~x', 't', 'a')).rejects.toThrow('instance id');
  });

  it('judges ttl expiry by the injected clock', async () => {
    const clock = createManualClock(Date.UTC(2030, 0, 1));
    const { store } = await fresh({ clock });
    await store.ttl.put('i', 'codes', 'c', 'code', clock.now() + 1000);
    expect(await store.ttl.get('i', 'codes', 'c')).toBe('code');
    clock.advance(1000);
    expect(await store.ttl.get('i', 'codes', 'c')).toBeUndefined();
    expect(await store.ttl.take('i', 'codes', 'c')).toBeUndefined();
  });

  it('sweeps more rows than one batch holds', async () => {
    const { store } = await fresh();
    const now = Date.now();
    await Promise.all(Array.from({ length: 1234 }, (_, i) => store.ttl.put('i', 'codes', `c${i}`, i, now - 1 - (i % 7))));
    expect(await store.ttl.sweep(now)).toBe(1234);
    expect(await store.ttl.sweep(now)).toBe(0);
  });
});
