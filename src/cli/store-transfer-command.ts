/**
 * `tessera copy-store --from SRC --to DST`: copies a whole store — every instance's events
 * (positions, versions, times), stream heads, read-model rows, unique claims, live TTL rows
 * (tokens, sessions, codes), node meta and position counters — from LMDB to PostgreSQL or back
 * (docs/operations/postgres.md, "Moving between stores"). SRC and DST are each a
 * `postgres://` URL or a Tessera data directory (the store is its `lmdb/` subdirectory). The
 * target must be empty; sealed secrets are copied as they are, so the master key must stay
 * the same. Progress (counts) goes to stderr, the one-line summary to stdout (nothing else:
 * the stores are opened without the node's JSON logger).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { INDEX_CATALOG, type DumpCounts, type StoreAdapter } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { StoreNotEmptyError } from '../store/dump.js';
import { openLmdbStore } from '../store/lmdb-store.js';
import { SCHEMA_NAME } from '../store/postgres-migrations.js';
import { openPostgresStore } from '../store/postgres-store.js';

export const COPY_STORE_USAGE =
  'tessera copy-store --from <data dir | postgres://…> --to <data dir | postgres://…> [--from-schema NAME] [--to-schema NAME]';

const POSTGRES_URL = /^postgres(ql)?:\/\//;
const PROGRESS_EVERY_MS = 1000;

type Location = { readonly kind: 'lmdb'; readonly dataDir: string } | { readonly kind: 'postgres'; readonly url: string; readonly schema: string | undefined };

class UsageError extends Error {}

/** Returns the exit code: 0 copied, 1 failed (target not empty, source empty, I/O), 2 usage. */
export async function runCopyStoreCommand(argv: readonly string[], config: Config): Promise<number> {
  let from: Location;
  let to: Location;
  try {
    ({ from, to } = parseLocations(argv, config));
  } catch (error) {
    process.stderr.write(`tessera copy-store: ${error instanceof Error ? error.message : String(error)}\nusage: ${COPY_STORE_USAGE}\n`);
    return 2;
  }
  const opened: StoreAdapter[] = [];
  try {
    const source = await open(from, 'source');
    opened.push(source);
    const target = await open(to, 'target');
    opened.push(target);
    process.stderr.write(`copy-store: ${describe(from)} → ${describe(to)}\n`);
    let last = 0;
    const counts = await target.load(source.dump(), {
      onProgress: (running) => {
        if (Date.now() - last < PROGRESS_EVERY_MS) return;
        last = Date.now();
        process.stderr.write(`copy-store: ${summary(running)}\n`);
      },
    });
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    process.stdout.write(`copied ${summary(counts)}\n`);
    if (total === 0) {
      process.stderr.write(`tessera copy-store: the source ${describe(from)} holds nothing: check --from${from.kind === 'postgres' ? ' and --from-schema' : ''}\n`);
      return 1;
    }
    if (to.kind === 'lmdb' && config.masterKey === undefined && !existsSync(join(to.dataDir, 'masterkey'))) {
      process.stderr.write(
        `copy-store: note: ${to.dataDir} has no masterkey file. Start the node with the SAME master key as before ` +
          '(TESSERA_MASTERKEY, or copy the old data directory\'s masterkey file there): sealed secrets were copied as they are.\n',
      );
    }
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tessera copy-store: ${error instanceof StoreNotEmptyError ? `${describe(to)}: ${message}` : `copy failed: ${message}`}\n`);
    return 1;
  } finally {
    await Promise.allSettled(opened.map((store) => store.close()));
  }
}

function parseLocations(argv: readonly string[], config: Config): { from: Location; to: Location } {
  const { values } = parseArgs({
    args: [...argv],
    options: { from: { type: 'string' }, to: { type: 'string' }, 'from-schema': { type: 'string' }, 'to-schema': { type: 'string' } },
  });
  const location = (flag: 'from' | 'to'): Location => {
    const raw = values[flag];
    if (raw === undefined || raw === '') throw new UsageError(`--${flag} is required`);
    const schema = values[`${flag}-schema`] ?? config.databaseSchema;
    if (POSTGRES_URL.test(raw)) {
      if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new UsageError(`--${flag}-schema must be a plain SQL identifier, got "${schema}"`);
      return { kind: 'postgres', url: raw, schema };
    }
    if (values[`${flag}-schema`] !== undefined) throw new UsageError(`--${flag}-schema applies to a postgres:// location only`);
    return { kind: 'lmdb', dataDir: resolve(raw) };
  };
  const from = location('from');
  const to = location('to');
  if (from.kind === 'lmdb' && !existsSync(join(from.dataDir, 'lmdb'))) {
    throw new UsageError(`--from: no LMDB store at ${join(from.dataDir, 'lmdb')} (give the node's data directory, TESSERA_DATA_DIR)`);
  }
  if (describe(from) === describe(to)) throw new UsageError('--from and --to name the same store');
  return { from, to };
}

function open(location: Location, role: string): Promise<StoreAdapter> {
  if (location.kind === 'lmdb') return Promise.resolve(openLmdbStore({ path: join(location.dataDir, 'lmdb'), catalog: INDEX_CATALOG }));
  return openPostgresStore({ url: location.url, schema: location.schema, maxConnections: 2, catalog: INDEX_CATALOG }).catch((error: unknown) => {
    throw new Error(`cannot open the ${role} database: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** Where a store is, for messages: never the password of a URL. */
function describe(location: Location): string {
  if (location.kind === 'lmdb') return `LMDB ${join(location.dataDir, 'lmdb')}`;
  const url = new URL(location.url);
  return `PostgreSQL ${url.host}${url.pathname}${location.schema === undefined ? '' : ` schema ${location.schema}`}`;
}

function summary(counts: Readonly<DumpCounts>): string {
  const n = (value: number) => value.toLocaleString('en-US');
  return (
    `${n(counts.event)} events, ${n(counts.head)} stream heads, ${n(counts.position)} position counters, ${n(counts.record)} records, ` +
    `${n(counts.unique)} unique claims, ${n(counts.ttl)} TTL rows, ${n(counts.meta)} meta entries`
  );
}
