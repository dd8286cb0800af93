/**
 * The "PostgreSQL floor" of bench/scale.ts (issue #15): what a PostgreSQL row would cost if the
 * node added nothing to the one statement it sends per request. For each request the statement
 * is built by the store's own code — the search executor (src/api/shared/search-executor.ts)
 * planning the organization search as search-organizations.ts declares it, over the store's
 * positioned index reads (postgres-indexes.ts createPositionedIndexReads, as the read cache calls
 * them for a request's first read), or the read cache's position check (readPosition) for GET —
 * with a recording client that keeps the `unsafe(text, params, options)` call instead of sending
 * it. The bench then sends exactly that call from a bare postgres.js client (connectPostgres: the
 * node's own connection settings, search_path on the node's schema), one at a time, and times it
 * to the answer (postgres.js's parse of the rows included, no msgpack decode). The node's own
 * connections are checked to have last run the same text (pg_stat_activity by the node's client
 * ports), so a floor that drifted from what the node sends shows as "differs".
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { create } from '@bufbuild/protobuf';
import type { Sql } from 'postgres';
import { INDEX_CATALOG, type IndexReads, orgIndexes } from '../actors/index.js';
import { type Condition, executeSearch } from '../src/api/shared/search-executor.js';
import { parseListQuery, textCondition } from '../src/api/shared/search.js';
import { SearchQuerySchema, TextFilterMethod } from '../src/gen/platform/resources/object/v3alpha/object_pb.js';
import { createPositionedIndexReads } from '../src/store/postgres-indexes.js';
import { readPosition } from '../src/store/postgres-queries.js';
import { connectPostgres } from '../src/store/postgres-store.js';
import { COLUMN_QUERY, createPgTermColumns, type PgTermColumns } from '../src/store/postgres-term-columns.js';

/** Statements sent (untimed, other inputs than the timed ones) before a floor's samples. */
export const FLOOR_WARMUP = Number(process.env.SCALE_FLOOR_WARMUP ?? 500);

/** One call of the store's client: `sql.unsafe(text, params, options)`. */
export interface Statement {
  readonly text: string;
  readonly params: readonly unknown[];
  readonly options: unknown;
}

/**
 * The statement of a row's request with input `i` (the same i as the row's request); `sql` is the
 * floor's own client, for the reads a request does not send (a term column's, held across
 * requests). Without it a CONTAINS is the SQL filter the node falls back to.
 */
export type StatementOf = (instanceId: string, i: number, sql?: Sql) => Promise<Statement>;

export interface Floor {
  readonly p50: number;
  readonly p99: number;
  /** Whether the statements are prepared (fixed text) or planned per call (values inlined). */
  readonly prepared: boolean;
  readonly distinctTexts: number;
  readonly chars: number;
  /** Rows answered by the last timed statement. */
  readonly rows: number;
  /** The node's connections last ran one of these texts ('same'), none did ('differs'), or it could not be told. */
  readonly node: 'same' | 'same (prefix: pg_stat_activity truncates)' | 'differs' | 'unknown';
}

export interface StatementFloor {
  measure(nodePid: number, statement: StatementOf, samples: number): Promise<Floor>;
  close(): Promise<void>;
}

/**
 * Runs the store's code on a client that records its one statement and answers no rows; with
 * `through`, answers it from that client (untimed: the epoch a term column's lookup checks), and
 * sends a term column's read there without recording it (the node reads it once, not per request).
 */
async function recorded(send: (sql: Sql) => Promise<unknown>, through?: Sql): Promise<Statement> {
  const sent: Statement[] = [];
  const unsafe = (text: string, params: readonly unknown[] = [], options?: unknown) => {
    if (through !== undefined && text === COLUMN_QUERY) return through.unsafe(text, params as never[], options as never);
    sent.push({ text, params, options });
    return through === undefined ? Promise.resolve([]) : through.unsafe(text, params as never[], options as never);
  };
  await send({ unsafe } as unknown as Sql);
  if (sent.length !== 1) throw new Error(`statement floor: the store's code sent ${sent.length} statements for one request, not one`);
  return sent[0]!;
}

/** GET organization on PostgreSQL: the record is held by the read cache; the request's statement is its position check. */
export function positionCheckStatement(): StatementOf {
  return (instanceId) => recorded((sql) => readPosition(sql, instanceId));
}

/** The index of each sorting column the bench uses (search-organizations.ts, SEARCH.sort; no column: creation date). */
const SORT = { NAME: 'name', CREATION_DATE: 'created' } as const;
const METHODS = { EQUALS: TextFilterMethod.EQUALS, STARTS_WITH: TextFilterMethod.STARTS_WITH, CONTAINS: TextFilterMethod.CONTAINS } as const;

/**
 * An organization search of an instance-wide admin (no visibility rule, no org ctx), as
 * search-organizations.ts plans it: the sort index of the column, a name filter as
 * textCondition. The executor runs over reads whose first index read is the store's positioned
 * one (as the read cache makes a request's first read); any other read means the request is
 * more than one statement and stops the bench.
 */
export function orgSearchStatement(search: {
  readonly limit: number;
  readonly sort?: keyof typeof SORT;
  readonly name?: (i: number) => { readonly method: keyof typeof METHODS; readonly name: string };
}): StatementOf {
  const query = parseListQuery(create(SearchQuerySchema, { limit: search.limit }));
  // CONTAINS: the node answers from a term column (postgres-term-columns.ts), read once and held.
  let columns: PgTermColumns | undefined;
  return (instanceId, i, floorSql) => {
    const filter = search.name?.(i);
    const fromColumn = filter?.method === 'CONTAINS' && floorSql !== undefined;
    if (fromColumn) columns ??= createPgTermColumns(floorSql!, INDEX_CATALOG);
    return recorded(async (sql) => {
      const positioned = createPositionedIndexReads(sql, fromColumn ? columns : undefined);
      const conditions: Condition[] = filter === undefined ? [] : [textCondition('name', METHODS[filter.method], filter.name)];
      let reads = 0;
      const first = () => {
        reads += 1;
        if (reads > 1) throw new Error('statement floor: the search read the index twice');
      };
      const other = (what: string) => () => Promise.reject(new Error(`statement floor: the search called ${what} (more than one statement)`));
      const recording: IndexReads = {
        readIndex: other('readIndex'),
        countIndex: other('countIndex'),
        rowCounts: other('rowCounts'),
        readSummaries: other('readSummaries'),
        getRecords: other('getRecords'),
        async readIndexWithSummaries(id, walk) {
          first();
          return (await positioned.readIndexWithSummaries(id, walk)).result;
        },
        async readIndexPage(id, walk) {
          first();
          return (await positioned.readIndexPage(id, walk)).result;
        },
      };
      await executeSearch(recording, { instanceId, table: orgIndexes, sort: SORT[search.sort ?? 'CREATION_DATE'], conditions, query });
    }, fromColumn ? floorSql : undefined);
  };
}

/** The local ports of `pid`'s TCP connections to `port` (its PostgreSQL connections). */
function clientPorts(pid: number, port: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const link = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (link !== null) inodes.add(link[1]!);
    } catch {
      // closed between the listing and the read
    }
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]!)) continue;
      if (parseInt(f[2]!.split(':')[1]!, 16) === port) ports.push(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** A bare client on the node's schema; the instance is the one with the most organizations. */
export async function openStatementFloor(url: string, schema: string): Promise<StatementFloor> {
  const sql = connectPostgres({ url, schema, maxConnections: 1 });
  const port = Number(new URL(url).port || 5432);
  const [row] = await sql.unsafe<{ instance_id: string }[]>('SELECT instance_id FROM row_counts WHERE table_name = $1 GROUP BY instance_id ORDER BY sum(count) DESC LIMIT 1', [orgIndexes.table]);
  if (row === undefined) throw new Error(`statement floor: no organizations in schema ${schema}`);
  const instanceId = row.instance_id;
  const send = (s: Statement) => sql.unsafe(s.text, s.params as never[], s.options as never);
  return {
    async measure(nodePid, statement, samples) {
      // One after the other: a statement may be answered by this client while it is built.
      const warm: Statement[] = [];
      for (let i = 0; i < FLOOR_WARMUP; i += 1) warm.push(await statement(instanceId, samples + i, sql));
      const timed: Statement[] = [];
      for (let i = 0; i < samples; i += 1) timed.push(await statement(instanceId, i, sql));
      for (const s of warm) await send(s);
      const times: number[] = [];
      let rows = 0;
      for (const s of timed) {
        const t0 = performance.now();
        const answer = await send(s);
        times.push(performance.now() - t0);
        rows = answer.length;
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
      const texts = new Set(timed.map((s) => s.text));
      return { p50: at(0.5), p99: at(0.99), prepared: (timed[0]!.options as { prepare?: boolean } | undefined)?.prepare === true, distinctTexts: texts.size, chars: timed[0]!.text.length, rows, node: await nodeRan(nodePid, texts) };
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };

  /** Whether one of the node's connections last ran one of `texts` (pg_stat_activity keeps track_activity_query_size bytes of it). */
  async function nodeRan(nodePid: number, texts: ReadonlySet<string>): Promise<Floor['node']> {
    const ports = clientPorts(nodePid, port);
    if (ports.length === 0) return 'unknown';
    const ran = await sql.unsafe<{ query: string }[]>("SELECT query FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND client_addr IN ('127.0.0.1', '::1')", [ports]);
    if (ran.length === 0) return 'unknown';
    if (ran.some((r) => texts.has(r.query))) return 'same';
    const limit = Number((await sql.unsafe<{ setting: string }[]>("SELECT setting FROM pg_settings WHERE name = 'track_activity_query_size'"))[0]?.setting ?? 1024);
    const truncated = ran.filter((r) => Buffer.byteLength(r.query) >= limit - 4);
    if (truncated.some((r) => [...texts].some((t) => t.startsWith(r.query)))) return 'same (prefix: pg_stat_activity truncates)';
    return 'differs';
  }
}

/** How a row's floor was taken, for the notes. */
export function floorRowNote(f: Floor): string {
  const how = f.prepared ? 'a prepared statement (text fixed, values bound)' : `planned per call (values written into the text; ${f.distinctTexts} distinct texts)`;
  return `${how}, ${f.chars} characters, ${f.rows} rows answered; the node's connections last ran the same text: ${f.node}`;
}
