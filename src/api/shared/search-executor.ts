/**
 * The search executor every resource search runs (docs/architecture.md "Indexes and the
 * search executor"): filters become conditions on the table's indexes (actors/<area>/indexes.ts);
 * the cheapest condition is the source (ids < one term < a prefix < a scan of index terms),
 * the others are checked on the candidates' summaries; each candidate passes the permission
 * check by id and scope, then the page is cut in the requested order. Without conditions the
 * sort index is walked in order and the total comes from the maintained row counts. Rows are
 * read only for the page, and for candidates of searches whose rules need the row itself
 * (`rowCheck`).
 */
import { type IndexEntry, type IndexRange, type IndexReads, PARENT_INDEX, ProgrammerError, type RowSummary, type SummarizedEntry, type TableIndexes } from '../../../actors/index.js';
import { compareStrings, type ListQuery } from './search.js';

/**
 * A filter as the executor sees it: ids, a range (and test) on one index, nothing matches
 * ('none'), or no narrowing at all ('all': a filter checked by the handler's `rowCheck`).
 */
export type Condition =
  | { readonly ids: readonly string[] }
  | {
      readonly index: string;
      readonly equals?: string;
      /** Any of these terms (e.g. ids of entries, inIds of a sub-row table). */
      readonly anyOf?: readonly string[];
      readonly prefix?: string;
      /** Term filters the store applies while it walks the index keys. */
      readonly contains?: string;
      readonly suffix?: string;
      /** Checked on every term of the range (the index's terms only: no row is read). */
      readonly test?: (term: string, scope: string) => boolean | Promise<boolean>;
    }
  | 'none'
  | 'all';

type Narrowing = Exclude<Condition, 'none' | 'all'>;

export interface SearchPlan<R> {
  readonly instanceId: string;
  readonly table: TableIndexes;
  /** The index giving the order (ties by id). */
  readonly sort: string;
  readonly conditions: readonly Condition[];
  readonly query: ListQuery;
  /** Whether a candidate may be listed, by id and scope; absent: every row. */
  readonly visible?: (id: string, scope: string) => boolean | Promise<boolean>;
  /** `visible` ignores the id: totals without conditions come from the row counts per scope. */
  readonly scopeOnly?: boolean;
  /**
   * `visible` holds exactly for the scopes that are rows of this table (a caller allowed in every
   * organization sees the rows of the organizations that exist): a store that pages in one
   * statement (readIndexPage) checks that itself.
   */
  readonly scopeRows?: string;
  /** A rule that needs the row (other aggregates' state): every candidate is read. */
  readonly rowCheck?: (row: R) => boolean | Promise<boolean>;
}

export interface SearchResult<R> {
  readonly rows: readonly R[];
  readonly total: number;
}

/** Entries per index read while collecting candidates (the largest walk page). */
const PAGE = 2000;
/**
 * A walk that may stop once the page is full (the total known without it) reads its first page
 * at `offset + limit` plus this many entries (room for a few rejected candidates), then pages
 * growing by WALK_GROWTH up to PAGE while the visibility check rejects entries.
 */
const WALK_MARGIN = 16;
const WALK_GROWTH = 8;
/**
 * Rows read with the candidates' first walk page (stores with readIndexWithSummaries) when the
 * page ends within this many entries: a search matching up to `offset + limit` rows then reads
 * its page's rows in the same round trip; more candidates cost at most this many extra rows.
 */
const INLINE_ROWS = 100;

export async function executeSearch<R>(reads: IndexReads, plan: SearchPlan<R>): Promise<SearchResult<R>> {
  if (plan.conditions.includes('none')) return { rows: [], total: 0 };
  const conditions = plan.conditions.filter((c): c is Narrowing => c !== 'none' && c !== 'all');
  for (const index of [plan.sort, ...conditions.flatMap((c) => ('index' in c ? [c.index] : []))]) checkWalkable(plan.table, index);
  if (conditions.length === 0 && plan.rowCheck === undefined) return walkSorted(reads, plan);
  return searchCandidates(reads, plan, conditions);
}

/** A summary-only index has no entries to walk: a search declared on it would find nothing. */
function checkWalkable(table: TableIndexes, index: string): void {
  if (table.indexes.some((d) => d.name === index && d.summaryOnly === true)) {
    throw new ProgrammerError(`search: index ${index} of ${table.table} is kept in the summaries only; declare it walked to search or sort by it`);
  }
}

/** No conditions: the sort index in order, counts from the row counts (or a walk of keys). */
async function walkSorted<R>(reads: IndexReads, plan: SearchPlan<R>): Promise<SearchResult<R>> {
  const { instanceId, table, query } = plan;
  const reverse = !query.asc;
  const visible = plan.visible;
  let ids: string[];
  let total: number;
  const scopeRows = visible === undefined ? undefined : plan.scopeRows;
  if ((visible === undefined || scopeRows !== undefined) && reads.readIndexPage !== undefined && table.source === undefined) {
    // One round trip on PostgreSQL: the page of the sort index, its rows and the row count
    // (with scopeRows: of the scopes that exist, checked in the same statement).
    const page = await reads.readIndexPage(instanceId, {
      table: table.table,
      index: plan.sort,
      reverse,
      offset: query.offset,
      limit: query.limit,
      ...(scopeRows === undefined ? {} : { scopeRows }),
    });
    return { rows: page.rows.filter((r) => r !== undefined) as R[], total: page.total };
  }
  if (visible === undefined) {
    const counts = await reads.rowCounts(instanceId, table.table);
    total = counts.reduce((sum, c) => sum + c.count, 0);
    ids = (await reads.readIndex(instanceId, { table: table.table, index: plan.sort, reverse, offset: query.offset, limit: query.limit })).map((e) => e.id);
  } else {
    ids = [];
    let seen = 0;
    let counted: number | undefined;
    if (plan.scopeOnly === true) {
      counted = 0;
      for (const c of await reads.rowCounts(instanceId, table.table)) if (await visible('', c.scope)) counted += c.count;
    }
    // With the total known, the walk stops at a full page: its pages start small (WALK_MARGIN).
    const first = counted === undefined ? PAGE : Math.min(PAGE, query.offset + query.limit + WALK_MARGIN);
    for await (const entry of walk(reads, instanceId, { table: table.table, index: plan.sort, reverse }, false, first)) {
      if (!(await visible(entry.id, entry.scope))) continue;
      if (seen >= query.offset && ids.length < query.limit) ids.push(entry.id);
      seen += 1;
      // The page is full and the total is known: the rest of the index need not be walked.
      if (counted !== undefined && ids.length >= query.limit) break;
    }
    total = counted ?? seen;
  }
  const rows = (await readRows(reads, instanceId, table, ids)).filter((r) => r !== undefined) as R[];
  return { rows, total };
}

interface Candidate {
  readonly id: string;
  readonly scope: string;
  /** Term of the sort index, when known without a summary. */
  sortTerm?: string;
  summary?: RowSummary;
  row?: unknown;
}

async function searchCandidates<R>(reads: IndexReads, plan: SearchPlan<R>, conditions: readonly Narrowing[]): Promise<SearchResult<R>> {
  const { instanceId, table, query } = plan;
  const position = (index: string): number => {
    const i = table.indexes.findIndex((d) => d.name === index);
    if (i < 0) throw new Error(`search: table ${table.table} has no index ${index}`);
    return i;
  };
  const sortAt = position(plan.sort);
  const [source, ...rest] = [...conditions].sort((a, b) => cost(a) - cost(b));
  const inline = table.source === undefined && query.offset + query.limit <= INLINE_ROWS ? query.offset + query.limit : 0;
  let candidates = source === undefined ? await allRows(reads, instanceId, table, plan.sort) : await fromSource(reads, instanceId, table, source, plan.sort, inline);
  // One candidate and no other condition (an EQUALS on a unique term): there is no order to
  // find, so its summary is not read (on LMDB one random B-tree leaf less per lookup); the row is.
  const needSummaries = rest.length > 0 || (candidates.length > 1 && candidates.some((c) => c.sortTerm === undefined));
  if (needSummaries) {
    const unread = candidates.filter((c) => c.summary === undefined);
    for (let i = 0; i < unread.length; i += PAGE) {
      const slice = unread.slice(i, i + PAGE);
      const summaries = await reads.readSummaries(instanceId, table.table, slice.map((c) => c.id));
      slice.forEach((c, j) => (c.summary = summaries[j]));
    }
    candidates = candidates.filter((c) => c.summary !== undefined);
    const kept: Candidate[] = [];
    for (const c of candidates) {
      if (await matchesAll(c, rest, position)) {
        c.sortTerm ??= c.summary!.terms[sortAt]?.[0] ?? '';
        kept.push(c);
      }
    }
    candidates = kept;
  }
  if (plan.visible !== undefined) {
    const kept: Candidate[] = [];
    for (const c of candidates) if (await plan.visible(c.id, c.scope)) kept.push(c);
    candidates = kept;
  }
  if (plan.rowCheck !== undefined) {
    const kept: Candidate[] = [];
    for (let i = 0; i < candidates.length; i += PAGE) {
      const slice = candidates.slice(i, i + PAGE);
      const unread = slice.filter((c) => c.row === undefined);
      const read = unread.length === 0 ? [] : await readRows(reads, instanceId, table, unread.map((c) => c.id));
      const byId = new Map(unread.map((c, j) => [c.id, read[j]]));
      for (const c of slice) {
        const row = c.row ?? byId.get(c.id);
        if (row !== undefined && (await plan.rowCheck(row as R))) kept.push({ ...c, row });
      }
    }
    candidates = kept;
  }
  const direction = query.asc ? 1 : -1;
  candidates.sort((a, b) => direction * (compareStrings(a.sortTerm ?? '', b.sortTerm ?? '') || compareStrings(a.id, b.id)));
  const page = candidates.slice(query.offset, query.offset + query.limit);
  const missing = page.filter((c) => c.row === undefined);
  let gone = 0;
  if (missing.length > 0) {
    const rows = await readRows(reads, instanceId, table, missing.map((c) => c.id));
    missing.forEach((c, j) => (c.row = rows[j]));
    // A candidate whose summary was not read and whose row is not there was removed after its
    // index entry was read: not counted, as a missing summary is not.
    gone = missing.filter((c) => c.row === undefined && c.summary === undefined).length;
  }
  return { rows: page.flatMap((c) => (c.row === undefined ? [] : [c.row as R])), total: candidates.length - gone };
}

/**
 * Rows by id, in `ids` order. A sub-row table's rows are its parents' entries (SubRow): each
 * parent is read once and the entry picked by id.
 */
async function readRows(reads: IndexReads, instanceId: string, table: TableIndexes, ids: readonly string[]): Promise<readonly unknown[]> {
  const source = table.source;
  if (source === undefined) return reads.getRecords(instanceId, table.table, ids);
  const at = table.indexes.findIndex((d) => d.name === PARENT_INDEX);
  const summaries = await reads.readSummaries(instanceId, table.table, ids);
  const parentIds = summaries.map((s) => s?.terms[at]?.[0]);
  const wanted = [...new Set(parentIds.filter((p): p is string => p !== undefined))];
  const parents = await reads.getRecords(instanceId, source.table, wanted);
  const entries = new Map<string, unknown>();
  wanted.forEach((parentId, i) => {
    const parent = parents[i];
    if (parent !== undefined) for (const sub of source.rows(parentId, parent)) entries.set(sub.id, sub.value);
  });
  return ids.map((id) => entries.get(id));
}

function cost(condition: Narrowing): number {
  if ('ids' in condition) return 0;
  if (condition.equals !== undefined || condition.anyOf !== undefined) return 1;
  if (condition.prefix !== undefined) return 2;
  return 3;
}

/** Every row, from the sort index (keys only). */
async function allRows(reads: IndexReads, instanceId: string, table: TableIndexes, sort: string): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for await (const e of walk(reads, instanceId, { table: table.table, index: sort })) out.push({ id: e.id, scope: e.scope, sortTerm: e.term });
  return out;
}

/** The source condition's candidates, each id once; the first `inline` with their rows when the store reads them along. */
async function fromSource(reads: IndexReads, instanceId: string, table: TableIndexes, source: Narrowing, sort: string, inline: number): Promise<Candidate[]> {
  if ('ids' in source) {
    const ids = [...new Set(source.ids)];
    const out: Candidate[] = [];
    for (let i = 0; i < ids.length; i += PAGE) {
      const slice = ids.slice(i, i + PAGE);
      const summaries = await reads.readSummaries(instanceId, table.table, slice);
      slice.forEach((id, j) => {
        const summary = summaries[j];
        if (summary !== undefined) out.push({ id, scope: summary.scope, summary });
      });
    }
    return out;
  }
  const byId = new Map<string, Candidate>();
  const { test, anyOf, ...bounds } = source;
  const ranges = anyOf === undefined ? [{ ...bounds, table: table.table }] : [...new Set(anyOf)].map((equals) => ({ ...bounds, equals, table: table.table }));
  // Candidates of another index than the sort's need their summaries (the sort term, other
  // conditions): read with the entries when the store can (one round trip per page).
  const withSummaries = source.index !== sort && reads.readIndexWithSummaries !== undefined;
  for (const range of ranges) {
    for await (const e of walk(reads, instanceId, { ...range, ...(withSummaries && inline > 0 ? { rows: inline } : {}) }, withSummaries)) {
      if (byId.has(e.id) || (test !== undefined && !(await test(e.term, e.scope)))) continue;
      const { summary, row } = e as Partial<SummarizedEntry>;
      if (withSummaries && summary === undefined) continue; // the row is gone
      byId.set(e.id, {
        id: e.id,
        scope: e.scope,
        ...(source.index === sort ? { sortTerm: e.term } : {}),
        ...(summary === undefined ? {} : { summary }),
        ...(row === undefined ? {} : { row }),
      });
    }
  }
  return [...byId.values()];
}

async function matchesAll(c: Candidate, conditions: readonly Narrowing[], position: (index: string) => number): Promise<boolean> {
  for (const condition of conditions) {
    if ('ids' in condition) {
      if (!condition.ids.includes(c.id)) return false;
      continue;
    }
    let hit = false;
    for (const term of c.summary!.terms[position(condition.index)] ?? []) {
      if (condition.equals !== undefined && term !== condition.equals) continue;
      if (condition.anyOf !== undefined && !condition.anyOf.includes(term)) continue;
      if (condition.prefix !== undefined && !term.startsWith(condition.prefix)) continue;
      if (condition.contains !== undefined && !term.includes(condition.contains)) continue;
      if (condition.suffix !== undefined && !term.endsWith(condition.suffix)) continue;
      if (condition.test !== undefined && !(await condition.test(term, c.scope))) continue;
      hit = true;
      break;
    }
    if (!hit) return false;
  }
  return true;
}

/**
 * An index range entry by entry, read in pages (keyset), in walk order; with summaries when asked
 * and the store can. Pages start at `first` entries and grow by WALK_GROWTH up to PAGE.
 */
async function* walk(
  reads: IndexReads,
  instanceId: string,
  range: IndexRange & { readonly reverse?: boolean; readonly rows?: number },
  summaries = false,
  first = PAGE,
): AsyncGenerator<IndexEntry | SummarizedEntry> {
  let after: IndexEntry | undefined;
  let size = Math.max(1, Math.min(PAGE, first));
  for (;;) {
    // Rows (IndexWalk.rows) are asked with the first page only.
    const { rows, ...bounds } = range;
    const next = { ...bounds, limit: size, ...(after === undefined ? (rows === undefined ? {} : { rows }) : { after: { term: after.term, id: after.id } }) };
    const page = summaries && reads.readIndexWithSummaries !== undefined ? await reads.readIndexWithSummaries(instanceId, next) : await reads.readIndex(instanceId, next);
    yield* page;
    if (page.length < size) return;
    after = page[page.length - 1];
    size = Math.min(PAGE, size * WALK_GROWTH);
  }
}
