/**
 * Versioned schema migrations of the PostgreSQL store (docs/operations/postgres.md). All run
 * in ONE transaction holding a transaction-level advisory lock keyed by the schema name, so
 * two nodes starting at once apply each version exactly once; DDL is transactional, so a
 * failed migration leaves the schema as it was. Append-only: never edit a released version.
 */
import type { Logger } from '../../actors/index.js';
import type { Sql } from 'postgres';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Identifiers sort as UTF-8 bytes (COLLATE "C") so scans match LMDB's key order. */
const ID = 'text COLLATE "C" NOT NULL';

/**
 * Migration 4 as released (never edited): the optional trigram index (GIN, pg_trgm) on
 * `index_entries.term` that served the LIKE patterns of CONTAINS / ENDS_WITH filters, since
 * replaced by TRIGRAM_INDEXES (migration 5). pg_trgm is used wherever it is installed; when it is
 * not, it is created in `public` (a trusted extension since PostgreSQL 13: the database owner
 * may), never in the store's schema, whose DROP … CASCADE would take other schemas' indexes
 * with it. When it cannot be created (not shipped, no privilege, no `public`) the error is
 * swallowed in a subtransaction and the store works without the index (the same matches, from
 * a scan of the index's own entries). Idempotent; run after the versioned migrations.
 */
/**
 * The start of both trigram blocks: `ext` is the schema of pg_trgm, created in `public` when
 * missing and allowed, else NULL.
 */
const WITH_PG_TRGM = `  DECLARE ext text;
  BEGIN
    SELECT extnamespace::regnamespace::text INTO ext FROM pg_extension WHERE extname = 'pg_trgm';
    IF ext IS NULL THEN
      BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
        SELECT extnamespace::regnamespace::text INTO ext FROM pg_extension WHERE extname = 'pg_trgm';
      EXCEPTION WHEN OTHERS THEN
        ext := NULL;
      END;
    END IF;
`;

const TRIGRAM_INDEX_V4 = `DO $tessera$
${WITH_PG_TRGM}    IF ext IS NOT NULL AND to_regclass('index_entries_term_trgm') IS NULL THEN
      EXECUTE format('CREATE INDEX index_entries_term_trgm ON index_entries USING gin (term %s.gin_trgm_ops)', ext);
    END IF;
  END
$tessera$`;

/**
 * Text terms (any character other than an ASCII digit) and digit-only terms (ids, timestamps,
 * numbers), each set in its own partial trigram index: a search term matching a pattern that
 * holds a non-digit holds one too, so such a search reads the text index alone, whose posting
 * lists leave out every id and timestamp entry of every table (postgres-indexes.ts,
 * TEXT_TERM); a digit-only pattern reads both. Each entry is in one of the two, so writes cost
 * what the one index cost. `term ~ '[^0-9]'` must match the searches' text exactly: the planner
 * uses a partial index only for a query that states its predicate.
 */
export const TEXT_TERM = "term ~ '[^0-9]'";
export const DIGIT_TERM = "term !~ '[^0-9]'";

/**
 * The optional trigram indexes (GIN, pg_trgm; TEXT_TERM / DIGIT_TERM) on `index_entries.term`
 * that serve the LIKE patterns of CONTAINS / ENDS_WITH filters. pg_trgm is used wherever it is
 * installed; when it is not, it is created in `public` (a trusted extension since PostgreSQL 13:
 * the database owner may), never in the store's schema, whose DROP … CASCADE would take other
 * schemas' indexes with it. When it cannot be created (not shipped, no privilege, no `public`)
 * the error is swallowed in a subtransaction and the store works without the indexes (the same
 * matches, from a scan of the index's own entries). Replaces migration 4's index on every term.
 * Idempotent; run after the versioned migrations.
 */
export const TRIGRAM_INDEXES = `DO $tessera$
${WITH_PG_TRGM}    IF ext IS NOT NULL AND to_regclass('index_entries_text_trgm') IS NULL THEN
      EXECUTE format('CREATE INDEX index_entries_text_trgm ON index_entries USING gin (term %s.gin_trgm_ops) WHERE ${TEXT_TERM.replaceAll("'", "''")}', ext);
    END IF;
    IF ext IS NOT NULL AND to_regclass('index_entries_digits_trgm') IS NULL THEN
      EXECUTE format('CREATE INDEX index_entries_digits_trgm ON index_entries USING gin (term %s.gin_trgm_ops) WHERE ${DIGIT_TERM.replaceAll("'", "''")}', ext);
    END IF;
    IF to_regclass('index_entries_text_trgm') IS NOT NULL AND to_regclass('index_entries_digits_trgm') IS NOT NULL THEN
      DROP INDEX IF EXISTS index_entries_term_trgm;
    END IF;
  END
$tessera$`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE instance_positions (
        instance_id ${ID} PRIMARY KEY,
        position bigint NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE TABLE events (
        instance_id ${ID},
        position bigint NOT NULL,
        aggregate_type ${ID},
        aggregate_id ${ID},
        version integer NOT NULL,
        type text NOT NULL,
        owner_type text NOT NULL,
        owner_id text NOT NULL,
        creator text NOT NULL,
        created_at bigint NOT NULL,
        payload bytea NOT NULL,
        CONSTRAINT events_pkey PRIMARY KEY (instance_id, position),
        CONSTRAINT events_stream_version UNIQUE (instance_id, aggregate_type, aggregate_id, version)
      );
      CREATE TABLE stream_heads (
        instance_id ${ID},
        aggregate_type ${ID},
        aggregate_id ${ID},
        version integer NOT NULL,
        PRIMARY KEY (instance_id, aggregate_type, aggregate_id)
      );
      CREATE TABLE records (
        instance_id ${ID},
        table_name ${ID},
        id ${ID},
        value bytea NOT NULL,
        PRIMARY KEY (instance_id, table_name, id)
      );
      CREATE TABLE unique_claims (
        instance_id ${ID},
        scope ${ID},
        value ${ID},
        holder text NOT NULL,
        PRIMARY KEY (instance_id, scope, value)
      );
      CREATE TABLE ttl_rows (
        instance_id ${ID},
        table_name ${ID},
        key ${ID},
        value bytea NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (instance_id, table_name, key)
      );
      CREATE INDEX ttl_rows_expires_at ON ttl_rows (expires_at);
      CREATE TABLE node_meta (
        key ${ID} PRIMARY KEY,
        value bytea NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'read-model indexes',
    // Filled by the index build (postgres-index-build.ts), which runs after the migrations.
    sql: `
      CREATE TABLE index_entries (
        instance_id ${ID},
        table_name ${ID},
        index_name ${ID},
        term ${ID},
        id ${ID},
        scope ${ID},
        CONSTRAINT index_entries_pkey PRIMARY KEY (instance_id, table_name, index_name, term, id) INCLUDE (scope)
      );
      CREATE TABLE row_summaries (
        instance_id ${ID},
        id ${ID},
        table_name ${ID},
        scope ${ID},
        terms bytea NOT NULL,
        PRIMARY KEY (instance_id, id, table_name)
      );
      CREATE TABLE row_counts (
        instance_id ${ID},
        table_name ${ID},
        scope ${ID},
        count bigint NOT NULL,
        PRIMARY KEY (instance_id, table_name, scope)
      );
      CREATE TABLE index_state (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        version integer NOT NULL,
        complete boolean NOT NULL,
        instance_id text,
        table_name text,
        after_id text
      );
      INSERT INTO index_state (version, complete) VALUES (0, false);
    `,
  },
  {
    version: 3,
    name: 'rate limit counts',
    // Shared rate-limit counts of the nodes (src/http/rate-limits-postgres.ts): one row per
    // limit, key and window; expires_at in epoch ms, rows past it are deleted by the nodes.
    sql: `
      CREATE TABLE rate_limit_counts (
        key ${ID} PRIMARY KEY,
        points bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX rate_limit_counts_expiry ON rate_limit_counts (expires_at);
    `,
  },
  {
    version: 4,
    name: 'trigram index of index terms',
    // CONTAINS / ENDS_WITH filters (LIKE on index_entries.term, postgres-indexes.ts).
    sql: TRIGRAM_INDEX_V4,
  },
  {
    version: 5,
    name: 'trigram indexes of text and digit-only terms',
    // Replaces migration 4's index (TRIGRAM_INDEXES); also run by every later migrate, so a
    // pg_trgm installed afterwards gets used.
    sql: TRIGRAM_INDEXES,
  },
  {
    version: 6,
    name: 'instances with rows of the listed tables',
    // StoreAdapter.instancesWithRows (LISTED_TABLES, actors/index-catalog.ts): the periodic passes
    // of the outbox and the event executions read the instances that have such a row, not every
    // instance. The literal list is this release's LISTED_TABLES; widening it is a new migration.
    sql: `
      CREATE INDEX records_listed ON records (table_name, instance_id) WHERE table_name IN ('executions', 'outbox_messages');
    `,
  },
  {
    version: 7,
    name: 'index entries kept across instances',
    // StoreAdapter.readAcrossInstances (indexes declared acrossInstances, kernel/indexes.ts): key
    // maintenance reads the web-key rings whose windows are over, not every instance's. The
    // literal list is this release's ACROSS_TABLES (postgres-queries.ts); widening it is a new
    // migration. The entries themselves come with the catalog's index build.
    sql: `
      CREATE INDEX index_entries_across ON index_entries (index_name, term, instance_id, id) WHERE table_name IN ('web_keys');
    `,
  },
  {
    version: 8,
    name: 'index epochs',
    // The term columns of CONTAINS / ENDS_WITH filters (postgres-term-columns.ts): one epoch per
    // (instance, stored table), a fresh value whenever an append or the index build changes an
    // entry of the table's indexes. Every table with rows gets one now, so a column of data
    // written before this migration is kept from its first read.
    sql: `
      CREATE TABLE index_epochs (
        instance_id text NOT NULL,
        table_name text NOT NULL,
        epoch text NOT NULL,
        PRIMARY KEY (instance_id, table_name)
      );
      INSERT INTO index_epochs (instance_id, table_name, epoch)
        SELECT instance_id, table_name, md5(random()::text || clock_timestamp()::text) FROM row_counts GROUP BY instance_id, table_name;
    `,
  },
];


/** Schema names the store accepts (quoted anyway; this keeps them boring). */
export const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export interface MigrationResult {
  /** Versions applied by this call (empty when the schema was current). */
  readonly applied: readonly number[];
  /** Highest version present afterwards. */
  readonly version: number;
  /** Whether the trigram indexes of CONTAINS / ENDS_WITH filters exist (TRIGRAM_INDEXES). */
  readonly trigramIndex: boolean;
}

/**
 * Applies the missing migrations to `schema` (or the connection's current schema). The
 * connection's search_path must already point at that schema.
 */
export async function runMigrations(sql: Sql, options: { schema?: string; logger?: Logger } = {}): Promise<MigrationResult> {
  const { schema, logger } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name "${schema}"`);
  return sql.begin(async (tx) => {
    await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`tessera.migrate:${schema ?? ''}`]);
    // Created only when missing: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even
    // when the schema exists, which a role given only its own schema does not have.
    if (schema !== undefined && (await tx.unsafe('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).length === 0) {
      await tx.unsafe(`CREATE SCHEMA ${quoteIdent(schema)}`);
    }
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const rows = await tx.unsafe<{ version: number }[]>('SELECT version FROM schema_migrations ORDER BY version');
    const done = new Set(rows.map((r) => Number(r.version)));
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known) {
      logger?.warn({ schemaVersion: newest, knownVersion: known }, 'postgres schema is newer than this node knows');
    }
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx.unsafe('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
      logger?.info({ version: migration.version, name: migration.name }, 'postgres migration applied');
    }
    await tx.unsafe(TRIGRAM_INDEXES);
    const [trigram] = await tx.unsafe<{ present: boolean }[]>(
      "SELECT to_regclass('index_entries_text_trgm') IS NOT NULL AND to_regclass('index_entries_digits_trgm') IS NOT NULL AS present",
    );
    if (trigram?.present !== true) {
      logger?.warn({}, 'postgres: pg_trgm is not available, CONTAINS / ENDS_WITH search filters scan the index entries (docs/operations/postgres.md)');
    }
    return { applied, version: Math.max(newest, ...applied), trigramIndex: trigram?.present === true };
  });
}
