/**
 * Indexes of the PostgreSQL store (migration 2, docs/operations/postgres.md): `index_entries`
 * holds one row per (table, index, term, row id) with the row's scope, its primary key being
 * the ordered index every search walks (Index Only Scan, keyset pagination); `row_summaries`
 * the scope and terms of each row (for the append's diff and residual filters) and
 * `row_counts` the rows per (table, scope). The append writes them in its transaction, from
 * the summaries it read under the instance lock.
 */
import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';
import type { IndexEntry, IndexPage, IndexRange, IndexReads, IndexWalk, ProjectionState, RecordWrite, RowSummary, SummarizedEntry, TableIndexes } from '../../actors/index.js';
import { storedTableOf, subRowListTable, summarize } from '../../actors/index.js';
import { DIGIT_TERM, TEXT_TERM } from './postgres-migrations.js';
import { checkInstance, decodeValue, encodeValue, hasNul, inlineParams, positionState, PREPARED, readPosition } from './postgres-queries.js';
import { EPOCH_QUERY, type PgTermColumns, type ReadColumn } from './postgres-term-columns.js';
import { countColumn, readColumn } from './term-columns.js';

/**
 * The least string above every string starting with `prefix` in code point order (the "C"
 * collation's byte order): the prefix with its last code point raised by one (past the
 * surrogates, dropping trailing U+10FFFF); undefined when there is none (every string ≥ prefix).
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last === 0x10ffff) continue;
    points.push(String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1));
    return points.join('');
  }
  return undefined;
}

/** `value` as a LIKE pattern matching itself only (`\` is LIKE's default escape). */
export function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

/**
 * Whether pg_trgm extracts a trigram from a LIKE pattern around `text`: it splits words at
 * anything not alphanumeric (ASCII letters and digits counted here, whatever the database's
 * locale adds) and keeps three-character runs. Without one the trigram index cannot narrow the
 * search, so such patterns are tested with strpos / right on the index's own entries.
 */
export function hasTrigram(text: string): boolean {
  return /[A-Za-z0-9]{3}/.test(text);
}

const ENTRY_BASE = 'FROM index_entries WHERE instance_id = $1 AND table_name = $2 AND index_name = $3';

/**
 * `term LIKE <pattern p>` stated so the planner can take the partial trigram indexes
 * (postgres-migrations.ts, TRIGRAM_INDEXES): a term containing `text` holds a non-digit when
 * `text` does, so the text index's predicate adds nothing to the matches; a digit-only `text`
 * may match terms of either index (a BitmapOr of the two). Same matches as the LIKE alone.
 */
function likeClause(p: string, text: string): string {
  return /[^0-9]/.test(text) ? ` AND term LIKE ${p} AND ${TEXT_TERM}` : ` AND ((${TEXT_TERM} AND term LIKE ${p}) OR (${DIGIT_TERM} AND term LIKE ${p}))`;
}

/**
 * The WHERE clause of a range; parameters from $4. Equality and prefixes are ranges of the
 * primary key (`term` is COLLATE "C"); contains / ends-with are LIKE patterns (metacharacters of
 * the input escaped) that the trigram indexes answer when the schema has them
 * (postgres-migrations.ts, TRIGRAM_INDEXES) and the pattern has a trigram (hasTrigram), else
 * tests on the index's own entries: the same matches either way.
 */
function rangeClause(range: IndexRange): { clause: string; params: string[] } {
  let clause = '';
  const params: string[] = [];
  const param = (value: string) => {
    params.push(value);
    return `$${params.length + 3}`;
  };
  if (range.equals !== undefined) clause += ` AND term = ${param(range.equals)}`;
  else if (range.prefix !== undefined && range.prefix !== '') {
    clause += ` AND term >= ${param(range.prefix)}`;
    const end = prefixEnd(range.prefix);
    if (end !== undefined) clause += ` AND term < ${param(end)}`;
  }
  const { contains, suffix } = range;
  if (contains !== undefined && contains !== '') {
    clause += hasTrigram(contains) ? likeClause(param(`%${likeLiteral(contains)}%`), contains) : ` AND strpos(term, ${param(contains)}) > 0`;
  }
  if (suffix !== undefined && suffix !== '') {
    if (hasTrigram(suffix)) clause += likeClause(param(`%${likeLiteral(suffix)}`), suffix);
    else {
      const p = param(suffix);
      clause += ` AND right(term, char_length(${p}::text)) = ${p}`;
    }
  }
  return { clause, params };
}

/** The text and parameters of one walk (exported for the EXPLAIN test). */
export function walkQuery(instanceId: string, walk: IndexWalk): { text: string; params: (string | number)[]; scopeParam?: string } {
  const { clause, params } = rangeClause(walk);
  const all: (string | number)[] = [instanceId, walk.table, walk.index, ...params];
  const op = walk.reverse === true ? '<' : '>';
  let keyset = '';
  if (walk.after !== undefined) {
    keyset = ` AND (term, id) ${op} ($${all.length + 1}, $${all.length + 2})`;
    all.push(walk.after.term, walk.after.id);
  }
  let scoped = '';
  let scopeParam: string | undefined;
  if (walk.scopeRows !== undefined) {
    all.push(walk.scopeRows);
    scopeParam = `$${all.length}`;
    scoped = ` AND ${scopeIsRow(scopeParam, 'index_entries.scope')}`;
  }
  const dir = walk.reverse === true ? ' DESC' : '';
  all.push(Math.max(0, Math.floor(walk.limit)), Math.max(0, Math.floor(walk.offset ?? 0)));
  const text = `SELECT term, id, scope ${ENTRY_BASE}${clause}${keyset}${scoped} ORDER BY term${dir}, id${dir} LIMIT $${all.length - 1} OFFSET $${all.length}`;
  return scopeParam === undefined ? { text, params: all } : { text, params: all, scopeParam };
}

/**
 * A walk with each entry's summary and, for the first `walk.rows` entries, its row (exported for
 * the EXPLAIN test): a search's candidates and, when they are few, the page's rows in one round trip.
 */
export function walkWithSummariesQuery(instanceId: string, walk: IndexWalk): { text: string; params: (string | number)[] } {
  const inner = walkQuery(instanceId, walk);
  const dir = walk.reverse === true ? ' DESC' : '';
  const rows = Math.max(0, Math.floor(walk.rows ?? 0));
  // A subquery per entry, not a join: it is always a primary-key lookup, whatever the planner's
  // statistics say (a join planned on a never-analyzed table scanned every row of the table per entry).
  const summary = '(SELECT s.terms FROM row_summaries s WHERE s.instance_id = $1 AND s.id = e.id AND s.table_name = $2) AS terms';
  if (rows === 0) {
    return { text: `SELECT e.term, e.id, e.scope, ${summary} FROM (${inner.text}) e ORDER BY e.term${dir}, e.id${dir}`, params: inner.params };
  }
  const params = [...inner.params, rows];
  // `n`: the entry's place in the walk (the inner query's order); rows only for the first ones.
  return {
    text: `SELECT e.term, e.id, e.scope, ${summary},
        CASE WHEN e.n <= $${params.length} THEN (SELECT r.value FROM records r WHERE r.instance_id = $1 AND r.table_name = $2 AND r.id = e.id) END AS value, e.n <= $${params.length} AS with_row
      FROM (SELECT w.term, w.id, w.scope, row_number() OVER () AS n FROM (${inner.text}) w) e ORDER BY e.term${dir}, e.id${dir}`,
    params,
  };
}

/** `scope` is the id of a row of the table named by parameter `table` (a primary-key lookup in records). */
function scopeIsRow(table: string, scope: string): string {
  return `EXISTS (SELECT 1 FROM records o WHERE o.instance_id = $1 AND o.table_name = ${table} AND o.id = ${scope})`;
}

/**
 * The rows of a table (parameters $1 instance, $2 table), the sum of its row counts; with
 * `scopeTable` (a parameter) only the scopes that are rows of that table.
 */
function totalQuery(scopeTable?: string): string {
  const scoped = scopeTable === undefined ? '' : ` AND ${scopeIsRow(scopeTable, 'c.scope')}`;
  return `SELECT coalesce(sum(c.count), 0)::bigint AS total FROM row_counts c WHERE c.instance_id = $1 AND c.table_name = $2 AND c.count > 0${scoped}`;
}

/**
 * A walk with each entry's row (a primary-key lookup per entry) and the table's row count
 * (exported for the EXPLAIN test); with `walk.scopeRows`, entries and count of the scopes that
 * are rows of that table only (each entry's scope a primary-key lookup).
 */
export function pageQuery(instanceId: string, walk: IndexWalk): { text: string; params: (string | number)[] } {
  const inner = walkQuery(instanceId, walk);
  const dir = walk.reverse === true ? ' DESC' : '';
  return {
    text: `SELECT e.term, e.id, e.scope, (SELECT r.value FROM records r WHERE r.instance_id = $1 AND r.table_name = $2 AND r.id = e.id) AS value,
        (${totalQuery(inner.scopeParam)}) AS total
      FROM (${inner.text}) e ORDER BY e.term${dir}, e.id${dir}`,
    params: inner.params,
  };
}

/**
 * `query` (its $1 the instance) with the instance's position read in the same statement, so in
 * the same snapshot: the first columns are `position` and `created_at` (null when the instance
 * has none yet), then `columns` of the query's rows (`e`), or nulls in the one row returned when
 * it has none. The join has no condition, so it is a nested loop over the one position row and
 * the query's rows come out in the query's order (the EXPLAIN test checks the plan).
 */
function withPosition(query: { text: string; params: (string | number)[] }, columns = 'e.*'): { text: string; params: (string | number)[] } {
  return {
    text: `SELECT p.position, p.created_at, ${columns} FROM (VALUES (0)) AS one(x) LEFT JOIN instance_positions p ON p.instance_id = $1
      LEFT JOIN LATERAL (${query.text}) e ON true`,
    params: query.params,
  };
}

/**
 * walkWithSummariesQuery with the instance's position (withPosition): a request's first read
 * and its position check in one round trip (postgres-read-cache.ts). Exported for the EXPLAIN test.
 */
export function positionedWalkWithSummariesQuery(instanceId: string, walk: IndexWalk): { text: string; params: (string | number)[] } {
  return withPosition(walkWithSummariesQuery(instanceId, walk));
}

/**
 * pageQuery with the instance's position (withPosition); the total is read once beside the
 * position, so a page past the last entry is one statement too. Exported for the EXPLAIN test.
 */
export function positionedPageQuery(instanceId: string, walk: IndexWalk): { text: string; params: (string | number)[] } {
  const inner = walkQuery(instanceId, walk);
  const dir = walk.reverse === true ? ' DESC' : '';
  const rows = `SELECT e.term, e.id, e.scope, (SELECT r.value FROM records r WHERE r.instance_id = $1 AND r.table_name = $2 AND r.id = e.id) AS value
      FROM (${inner.text}) e ORDER BY e.term${dir}, e.id${dir}`;
  return withPosition({ text: rows, params: inner.params }, `(${totalQuery(inner.scopeParam)}) AS total, e.*`);
}

/** The count readIndexPage answers past the last entry (exported for the EXPLAIN test). */
export function pageTotalQuery(instanceId: string, walk: Pick<IndexWalk, 'table' | 'scopeRows'>): { text: string; params: string[] } {
  return walk.scopeRows === undefined
    ? { text: totalQuery(), params: [instanceId, walk.table] }
    : { text: totalQuery('$3'), params: [instanceId, walk.table, walk.scopeRows] };
}

export function countQuery(instanceId: string, range: IndexRange): { text: string; params: string[] } {
  const { clause, params } = rangeClause(range);
  return { text: `SELECT count(*)::bigint AS n ${ENTRY_BASE}${clause}`, params: [instanceId, range.table, range.index, ...params] };
}

export const IQ = {
  rowCounts: 'SELECT scope, count FROM row_counts WHERE instance_id = $1 AND table_name = $2 AND count > 0 ORDER BY scope',
  summaries: 'SELECT id, scope, terms FROM row_summaries WHERE instance_id = $1 AND table_name = $2 AND id = ANY($3::text[])',
  /**
   * The append's and the build's read, by row id across tables (primary key order: instance, id,
   * table): the row's summaries and those of its sub-rows (ids `<row id>/<key>`, kernel/indexes.ts
   * subRowId) in one primary-key range per row, [id, id || '0'), less the ids between that are
   * other rows' ('/' is the last character below '0'). A prepared statement: the LATERAL
   * subquery (OFFSET 0 keeps it from being pulled up into a join) makes its generic plan a probe
   * per row id whatever the statistics; as a join, a plan made on a never-analyzed table read
   * every summary of the instance per append.
   */
  summariesWithSubRows: `SELECT s.table_name, s.id, s.scope, s.terms FROM unnest($2::text[]) AS p(id)
    CROSS JOIN LATERAL (SELECT table_name, id, scope, terms FROM row_summaries
      WHERE instance_id = $1 AND id >= p.id AND id < (p.id || '0') COLLATE "C" AND (id = p.id OR id >= (p.id || '/') COLLATE "C") OFFSET 0) s`,
  getRecords: 'SELECT id, value FROM records WHERE instance_id = $1 AND table_name = $2 AND id = ANY($3::text[])',
} as const;

function unsafeParts(...parts: readonly string[]): boolean {
  return parts.some(hasNul);
}

/** A walk naming a key part PostgreSQL cannot hold: nothing matches. */
function unsafeWalk(walk: IndexWalk): boolean {
  return unsafeParts(walk.table, walk.index, walk.equals ?? '', walk.prefix ?? '', walk.contains ?? '', walk.suffix ?? '', walk.after?.term ?? '', walk.after?.id ?? '', walk.scopeRows ?? '');
}

/**
 * Walks with a LIKE pattern are planned for their pattern (an unnamed statement with the values
 * in its text, inlineParams: planned each time): a selective pattern takes the trigram index, one
 * matching most entries walks the primary key in order. A prepared statement's generic plan
 * would pick one for all patterns.
 */
export function prepared(text: string): boolean {
  return !text.includes(' LIKE ');
}

/** Runs a walk's statement: prepared when its text is fixed, else with its values inlined (one round trip either way). */
function runWalk<R extends object[]>(sql: Sql, text: string, params: (string | number)[]): Promise<R> {
  return prepared(text) ? sql.unsafe<R>(text, params, PREPARED) : sql.unsafe<R>(inlineParams(text, params), [], { prepare: false });
}

/**
 * Whether a column answers the range (postgres-term-columns.ts): CONTAINS / ENDS_WITH over the
 * whole index, no scope filter. term-columns.ts finds the same matches as the LIKE / strpos /
 * right tests of rangeClause on a "C"-collated term.
 */
function isColumnRange(range: IndexRange & { readonly scopeRows?: string }): boolean {
  return ((range.contains ?? '') !== '' || (range.suffix ?? '') !== '') && range.equals === undefined && (range.prefix ?? '') === '' && range.scopeRows === undefined;
}

/**
 * The entries' summaries and the rows of `$5` (ids) of table $2, with the epoch of table $3, in
 * one statement (exported for the EXPLAIN test): what a walk answered from a column leads to,
 * and whether the column was still the table's. One row even for no ids (the epoch's).
 */
export const COLUMN_LOOKUP = `SELECT x.epoch, e.id, e.terms, e.value FROM (VALUES (0)) AS one(v)
      LEFT JOIN index_epochs x ON x.instance_id = $1 AND x.table_name = $3
      LEFT JOIN LATERAL (SELECT w.id,
          (SELECT s.terms FROM row_summaries s WHERE s.instance_id = $1 AND s.id = w.id AND s.table_name = $2) AS terms,
          CASE WHEN w.id = ANY($5::text[]) THEN (SELECT r.value FROM records r WHERE r.instance_id = $1 AND r.table_name = $2 AND r.id = w.id) END AS value
        FROM unnest($4::text[]) AS w(id)) e ON true`;

/** COLUMN_LOOKUP with the instance's position (withPosition; exported for the EXPLAIN test). */
export const POSITIONED_COLUMN_LOOKUP = withPosition({ text: COLUMN_LOOKUP, params: [] }).text;

interface LookupRow {
  epoch: string | null;
  id: string | null;
  terms: Buffer | null;
  value: Buffer | null;
}

/** The entries with their summaries, and rows for the first `withRows`, as walkWithSummariesQuery's rows (toSummarized decodes them). */
function lookedUp(entries: readonly IndexEntry[], rows: readonly Omit<LookupRow, 'epoch'>[], withRows: number): SummarizedEntry[] {
  const byId = new Map(rows.flatMap((r) => (r.id === null ? [] : [[r.id, r] as const])));
  return toSummarized(
    entries.map((entry, i) => {
      const found = byId.get(entry.id);
      return { ...entry, terms: found?.terms ?? null, value: found?.value ?? null, with_row: i < withRows };
    }),
  );
}

/**
 * A walk with summaries answered from a column: its entries, then one lookup statement (`text`:
 * COLUMN_LOOKUP, or the positioned one); undefined when the lookup found the table at another
 * epoch than the column's. `first` is the statement's first row (the position's columns).
 */
async function lookUpColumnWalk<R extends LookupRow>(
  sql: Sql,
  text: string,
  where: { instanceId: string; walk: IndexWalk; epochTable: string },
  read: ReadColumn,
): Promise<{ result: SummarizedEntry[]; first: R | undefined } | undefined> {
  const { instanceId, walk, epochTable } = where;
  const entries = readColumn(read.column, walk);
  const withRows = Math.max(0, Math.floor(walk.rows ?? 0));
  const ids = [...new Set(entries.map((e) => e.id))];
  const rowIds = [...new Set(entries.slice(0, withRows).map((e) => e.id))];
  const rows = await sql.unsafe<R[]>(text, [instanceId, walk.table, epochTable, ids, rowIds] as never[], PREPARED);
  return (rows[0]?.epoch ?? null) === read.epoch ? { result: lookedUp(entries, rows, withRows), first: rows[0] } : undefined;
}

/**
 * A read that a held or freshly read column may answer (postgres-term-columns.ts): `answer`
 * gets the column, its epoch and whether this request read it (so current), and returns undefined
 * when the table's epoch turned out to be another; `database` is the statement of old.
 */
async function throughColumn<T>(
  columns: PgTermColumns | undefined,
  instanceId: string,
  range: IndexRange & { readonly scopeRows?: string },
  answer: (read: ReadColumn, fresh: boolean) => Promise<T | undefined>,
  database: () => Promise<T>,
): Promise<T> {
  if (columns === undefined || !isColumnRange(range)) return database();
  const { table, index } = range;
  const held = columns.held(instanceId, table, index);
  if (held !== undefined) {
    const answered = await answer(held, false);
    if (answered !== undefined) return answered;
    columns.stale(instanceId, table, index);
  }
  const built = await columns.build(instanceId, table, index);
  if (built !== undefined) {
    const answered = await answer(built, built.joined !== true);
    if (answered !== undefined) return answered;
  }
  return columns.filtered(instanceId, table, index, database);
}

async function readEpoch(sql: Sql, instanceId: string, table: string): Promise<string | null> {
  const [row] = await sql.unsafe<{ epoch: string }[]>(EPOCH_QUERY, [instanceId, table], PREPARED);
  return row?.epoch ?? null;
}

/** The index reads; with `columns`, CONTAINS / ENDS_WITH over a whole index read term columns. */
export function createPgIndexReads(sql: Sql, columns?: PgTermColumns): IndexReads {
  /** A column's answer when the table's epoch is still the column's (a fresh column is). */
  const current = async <T>(instanceId: string, table: string, read: ReadColumn, fresh: boolean, answer: () => T): Promise<T | undefined> =>
    fresh || (await readEpoch(sql, instanceId, columns!.epochTable(table))) === read.epoch ? answer() : undefined;
  return {
    async readIndex(instanceId, walk) {
      checkInstance(instanceId);
      if (!(walk.limit > 0) || unsafeWalk(walk)) return [];
      return throughColumn<readonly IndexEntry[]>(
        columns,
        instanceId,
        walk,
        (read, fresh) => current(instanceId, walk.table, read, fresh, () => readColumn(read.column, walk)),
        () => {
          const { text, params } = walkQuery(instanceId, walk);
          return runWalk<IndexEntry[]>(sql, text, params);
        },
      );
    },
    async readIndexWithSummaries(instanceId, walk) {
      checkInstance(instanceId);
      if (!(walk.limit > 0) || unsafeWalk(walk)) return [];
      return throughColumn<readonly SummarizedEntry[]>(
        columns,
        instanceId,
        walk,
        async (read) => (await lookUpColumnWalk(sql, COLUMN_LOOKUP, { instanceId, walk, epochTable: columns!.epochTable(walk.table) }, read))?.result,
        async () => {
          const { text, params } = walkWithSummariesQuery(instanceId, walk);
          return toSummarized(await runWalk<SummaryRow[]>(sql, text, params));
        },
      );
    },
    async readIndexPage(instanceId, walk) {
      checkInstance(instanceId);
      if (!(walk.limit > 0) || unsafeWalk(walk)) return { entries: [], rows: [], total: 0 };
      const { text, params } = pageQuery(instanceId, walk);
      const rows = await runWalk<PageRow[]>(sql, text, params);
      if (rows.length === 0) {
        // Past the last entry: the count alone.
        const total = pageTotalQuery(instanceId, walk);
        const [count] = await sql.unsafe<{ total: string }[]>(total.text, total.params, PREPARED);
        return { entries: [], rows: [], total: Number(count?.total ?? 0) };
      }
      return toPage(rows, Number(rows[0]!.total));
    },
    async countIndex(instanceId, range) {
      checkInstance(instanceId);
      if (unsafeParts(range.table, range.index, range.equals ?? '', range.prefix ?? '', range.contains ?? '', range.suffix ?? '')) return 0;
      return throughColumn(
        columns,
        instanceId,
        range,
        (read, fresh) => current(instanceId, range.table, read, fresh, () => countColumn(read.column, range)),
        async () => {
          const { text, params } = countQuery(instanceId, range);
          const [row] = await runWalk<{ n: string }[]>(sql, text, params);
          return Number(row?.n ?? 0);
        },
      );
    },
    async rowCounts(instanceId, table) {
      const rows = await sql.unsafe<{ scope: string; count: string }[]>(IQ.rowCounts, [checkInstance(instanceId), table], PREPARED);
      return rows.map((r) => ({ scope: r.scope, count: Number(r.count) }));
    },
    async readSummaries(instanceId, table, ids) {
      const wanted = ids.filter((id) => !hasNul(id));
      const rows = wanted.length === 0 ? [] : await sql.unsafe<{ id: string; scope: string; terms: Buffer }[]>(IQ.summaries, [checkInstance(instanceId), table, wanted], PREPARED);
      const byId = new Map(rows.map((r) => [r.id, { scope: r.scope, terms: decodeValue(r.terms) as string[][] }]));
      return ids.map((id) => byId.get(id));
    },
    async getRecords(instanceId, table, ids) {
      const wanted = ids.filter((id) => !hasNul(id));
      const rows = wanted.length === 0 ? [] : await sql.unsafe<{ id: string; value: Buffer }[]>(IQ.getRecords, [checkInstance(instanceId), table, wanted], PREPARED);
      const byId = new Map(rows.map((r) => [r.id, decodeValue(r.value)]));
      return ids.map((id) => byId.get(id));
    },
  };
}

interface SummaryRow {
  term: string;
  id: string;
  scope: string;
  terms: Buffer | null;
  value?: Buffer | null;
  with_row?: boolean;
}

interface PageRow {
  term: string;
  id: string;
  scope: string;
  value: Buffer | null;
  total: string;
}

/** The position columns of a withPosition statement; the query's own columns are null in the row of a query without rows. */
type Positioned<R> = { position: string | null; created_at: string | null } & { [K in keyof R]: R[K] | null };

function toSummarized(rows: readonly SummaryRow[]): SummarizedEntry[] {
  return rows.map((r) => {
    const entry = { term: r.term, id: r.id, scope: r.scope, summary: r.terms === null ? undefined : { scope: r.scope, terms: decodeValue(r.terms) as string[][] } };
    return r.with_row === true ? { ...entry, row: r.value === null || r.value === undefined ? undefined : decodeValue(r.value) } : entry;
  });
}

function toPage(rows: readonly Omit<PageRow, 'total'>[], total: number): IndexPage {
  return {
    entries: rows.map((r) => ({ term: r.term, id: r.id, scope: r.scope })),
    rows: rows.map((r) => (r.value === null ? undefined : decodeValue(r.value))),
    total,
  };
}

/** The rows of a withPosition statement that are the query's (an entry's id is never null). */
function ownRows<R extends { id: string }>(rows: readonly Positioned<R>[]): R[] {
  return rows.filter((r) => r.id !== null) as unknown as R[];
}

/** A read of an index and the instance's position in the same statement. */
export interface PositionedRead<T> {
  readonly result: T;
  readonly state: ProjectionState;
}

/**
 * readIndexWithSummaries and readIndexPage, each with the instance's position read in the same
 * statement: a request's first read doubles as its position check (postgres-read-cache.ts), so
 * a search whose caller is held (no read before the walk) is one round trip, not two.
 */
export interface PositionedIndexReads {
  readIndexWithSummaries(instanceId: string, walk: IndexWalk): Promise<PositionedRead<readonly SummarizedEntry[]>>;
  readIndexPage(instanceId: string, walk: IndexWalk): Promise<PositionedRead<IndexPage>>;
}

/** A walk that reads nothing still answers the position, with the position row alone. */
export function createPositionedIndexReads(sql: Sql, columns?: PgTermColumns): PositionedIndexReads {
  return {
    async readIndexWithSummaries(instanceId, walk) {
      checkInstance(instanceId);
      if (!(walk.limit > 0) || unsafeWalk(walk)) return { result: [], state: await readPosition(sql, instanceId) };
      return throughColumn<PositionedRead<readonly SummarizedEntry[]>>(
        columns,
        instanceId,
        walk,
        async (read) => {
          const found = await lookUpColumnWalk<Positioned<LookupRow>>(sql, POSITIONED_COLUMN_LOOKUP, { instanceId, walk, epochTable: columns!.epochTable(walk.table) }, read);
          return found === undefined ? undefined : { result: found.result, state: positionState(found.first) };
        },
        async () => {
          const { text, params } = positionedWalkWithSummariesQuery(instanceId, walk);
          const rows = await runWalk<Positioned<SummaryRow>[]>(sql, text, params);
          return { result: toSummarized(ownRows(rows)), state: positionState(rows[0]) };
        },
      );
    },
    async readIndexPage(instanceId, walk) {
      checkInstance(instanceId);
      if (!(walk.limit > 0) || unsafeWalk(walk)) return { result: { entries: [], rows: [], total: 0 }, state: await readPosition(sql, instanceId) };
      const { text, params } = positionedPageQuery(instanceId, walk);
      const rows = await runWalk<Positioned<PageRow>[]>(sql, text, params);
      return { result: toPage(ownRows(rows), Number(rows[0]?.total ?? 0)), state: positionState(rows[0]) };
    },
  };
}

/** Summaries as the database holds them, keyed `table NUL id`. */
export type SummaryMap = Map<string, RowSummary>;

export function summaryKey(table: string, id: string): string {
  return `${table}\u0000${id}`;
}

export function toSummaryMap(rows: readonly { table_name: string; id: string; scope: string; terms: Buffer }[]): SummaryMap {
  return new Map(rows.map((r) => [summaryKey(r.table_name, r.id), { scope: r.scope, terms: decodeValue(r.terms) as string[][] }]));
}

type Param = string | number | Buffer | string[];

/** What the index tables need for a set of row writes (each row once, as it ends up). */
export interface IndexChanges {
  readonly removed: [string, string, string, string][];
  readonly added: [string, string, string, string, string][];
  readonly summaries: [string, string, string, Buffer][];
  readonly dropped: [string, string][];
  readonly counts: Map<string, [string, string, number]>;
  /** Stored tables an entry of whose indexes was added, removed or moved: their index epochs change (postgres-term-columns.ts). */
  readonly epochs: Set<string>;
}

/**
 * Diffs each row's old summary against its new one, for every index table the row's table
 * feeds (tablesOf): its own, and each entry of a sub-row table against its old summary (the
 * parent's list of entries, subRowListTable, says which entries it had). Rows of tables
 * without indexes are skipped.
 */
export function indexChanges(tables: ReadonlyMap<string, readonly TableIndexes[]>, before: SummaryMap, rows: Iterable<RecordWrite>): IndexChanges {
  const changes: IndexChanges = { removed: [], added: [], summaries: [], dropped: [], counts: new Map(), epochs: new Set() };
  const count = (table: string, scope: string, delta: number) => {
    const key = summaryKey(table, scope);
    const entry = changes.counts.get(key) ?? [table, scope, 0];
    entry[2] += delta;
    changes.counts.set(key, entry);
  };
  const diff = (table: TableIndexes, id: string, value: unknown) => {
    const old = before.get(summaryKey(table.table, id));
    const next = value === null || value === undefined ? undefined : summarize(table, value);
    const moved = old !== undefined && next !== undefined && old.scope !== next.scope;
    const entriesBefore = changes.removed.length + changes.added.length;
    table.indexes.forEach((index, i) => {
      if (index.summaryOnly === true) return; // kept in the summary alone
      const was = old?.terms[i] ?? [];
      const now = next?.terms[i] ?? [];
      for (const term of was) if (!now.includes(term)) changes.removed.push([table.table, index.name, term, id]);
      for (const term of now) if (moved || !was.includes(term)) changes.added.push([table.table, index.name, term, id, next!.scope]);
    });
    if (changes.removed.length + changes.added.length > entriesBefore) changes.epochs.add(storedTableOf(table));
    if (old !== undefined) count(table.table, old.scope, -1);
    if (next === undefined) {
      if (old !== undefined) changes.dropped.push([table.table, id]);
    } else {
      count(table.table, next.scope, 1);
      changes.summaries.push([table.table, id, next.scope, encodeValue(next.terms)]);
    }
  };
  for (const row of rows) {
    for (const table of tables.get(row.table) ?? []) {
      if (table.source === undefined) {
        diff(table, row.id, row.value);
        continue;
      }
      const list = subRowListTable(table.table);
      const listed = before.get(summaryKey(list, row.id))?.terms[0] ?? [];
      const subRows = row.value === null || row.value === undefined ? [] : table.source.rows(row.id, row.value);
      const now = new Set(subRows.map((r) => r.id));
      for (const old of listed) if (!now.has(old)) diff(table, old, undefined);
      for (const sub of subRows) diff(table, sub.id, sub.value);
      // The parent's list of entries: a summary without a row count.
      if (subRows.length > 0) changes.summaries.push([list, row.id, '', encodeValue([[...now]])]);
      else if (listed.length > 0 || before.has(summaryKey(list, row.id))) changes.dropped.push([list, row.id]);
    }
  }
  return changes;
}

/**
 * The summaries an append or build diffs against: those of the rows `ids` (in every table), with
 * their sub-rows' and the lists of those (one query).
 */
export function readBeforeSummaries(
  tx: Pick<TransactionSql, 'unsafe'>,
  instanceId: string,
  ids: readonly string[],
): Promise<{ table_name: string; id: string; scope: string; terms: Buffer }[]> {
  if (ids.length === 0) return Promise.resolve([]);
  // Queued now (postgres.js queries are lazy), after the statements the caller queued before.
  // Prepared: planning it afresh took 0.1-0.3 ms per append, running it 0.02 ms; its generic
  // plan is the same primary-key lookups (the EXPLAIN test checks it).
  return tx.unsafe<{ table_name: string; id: string; scope: string; terms: Buffer }[]>(IQ.summariesWithSubRows, [instanceId, [...ids]], PREPARED).execute();
}

/** The statements that apply `changes` (text, parameters); multi-row inserts chunked by `chunk` rows. */
export function indexStatements(instanceId: string, changes: IndexChanges, values: (rows: number, width: number) => string, chunk: number): [string, Param[]][] {
  const out: [string, Param[]][] = [];
  const insert = (head: string, width: number, tuples: Param[][], tail: string) => {
    for (let i = 0; i < tuples.length; i += chunk) {
      const part = tuples.slice(i, i + chunk);
      out.push([`${head} VALUES ${values(part.length, width)} ${tail}`, part.flat()]);
    }
  };
  if (changes.removed.length > 0) {
    const cols = [0, 1, 2, 3].map((c) => changes.removed.map((r) => r[c]!));
    out.push([
      `DELETE FROM index_entries e USING unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS d(t, i, term, id)
        WHERE e.instance_id = $1 AND e.table_name = d.t AND e.index_name = d.i AND e.term = d.term AND e.id = d.id`,
      [instanceId, ...cols],
    ]);
  }
  // A moved row (new scope) re-adds its unchanged terms: the conflict updates the scope.
  insert(
    'INSERT INTO index_entries (instance_id, table_name, index_name, term, id, scope)',
    6,
    changes.added.map((a) => [instanceId, ...a]),
    'ON CONFLICT (instance_id, table_name, index_name, term, id) DO UPDATE SET scope = excluded.scope',
  );
  insert(
    'INSERT INTO row_summaries (instance_id, table_name, id, scope, terms)',
    5,
    changes.summaries.map((s) => [instanceId, ...s]),
    'ON CONFLICT (instance_id, id, table_name) DO UPDATE SET scope = excluded.scope, terms = excluded.terms',
  );
  if (changes.dropped.length > 0) {
    out.push([
      'DELETE FROM row_summaries s USING unnest($2::text[], $3::text[]) AS d(t, id) WHERE s.instance_id = $1 AND s.table_name = d.t AND s.id = d.id',
      [instanceId, changes.dropped.map((d) => d[0]), changes.dropped.map((d) => d[1])],
    ]);
  }
  if (changes.epochs.size > 0) out.push(epochStatement(instanceId, [...changes.epochs]));
  const deltas = [...changes.counts.values()].filter((c) => c[2] !== 0);
  insert(
    'INSERT INTO row_counts (instance_id, table_name, scope, count)',
    4,
    deltas.map((c) => [instanceId, ...c]),
    'ON CONFLICT (instance_id, table_name, scope) DO UPDATE SET count = row_counts.count + excluded.count',
  );
  return out;
}


/**
 * Gives the tables' index epochs a fresh random value (postgres-term-columns.ts): a column read
 * at another epoch is read again. One value for all of them: each differs from what it was.
 */
export function epochStatement(instanceId: string, tables: readonly string[]): [string, Param[]] {
  return [
    `INSERT INTO index_epochs (instance_id, table_name, epoch) SELECT $1::text, t, $3::text FROM unnest($2::text[]) AS t
      ON CONFLICT (instance_id, table_name) DO UPDATE SET epoch = excluded.epoch`,
    [instanceId, [...tables], randomUUID()],
  ];
}
