/**
 * `node dist/bench/lmdb-bytes.js [data directory]`: where an LMDB node's bytes go (issue #15; figures in
 * bench/README.md "Bytes per user on LMDB").
 *
 * Without a directory, seeds one first: a fresh node in a new temporary directory (kept, its path
 * printed), LMDB_BYTES_ORGS organizations through the API (default 10) and LMDB_BYTES_USERS users
 * (default 50,000) by `POST /admin/v1/import` documents of 10,000 into the default organization —
 * the same users as `bench/scale.ts` with SCALE_SEED=import — then stops the node.
 *
 * Then opens the directory read-only and walks every entry once, grouping keys by their kind
 * (src/store/keys.ts: the table tag; index keys per table and index name; records, summaries,
 * counts per table; claims per scope; events per event type) and summing the key bytes (the
 * ordered-binary encoding lmdb-js stores) and value bytes (without the 8-byte entry version).
 * Prints a table per kind (entries, bytes, bytes per user), the file size and LMDB's page counts
 * (`getStats()`): the bytes of page per entry show the B-tree's fill.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as lmdb from 'lmdb';
import { open, type Key } from 'lmdb';
import { Packr } from 'msgpackr';
import { INDEX_CATALOG } from '../actors/index.js';
import { isIndexCode } from '../src/store/keys.js';
import { indexCode } from '../src/store/lmdb-index-codes.js';
import { repackLmdbEnvironment } from '../src/store/lmdb-backup.js';
import { SHARED_STRUCTURES } from '../src/store/lmdb-store.js';
import { importDocument } from './import-seed.js';
import { Cleanup } from './processes.js';
import { httpRequest, startTessera, type TesseraNode } from './tessera.js';

const env = process.env;
const ORGS = Number(env.LMDB_BYTES_ORGS ?? 10);
const USERS = Number(env.LMDB_BYTES_USERS ?? 50_000);
const IMPORT_USERS = 10_000;
/** lmdb re-exports ordered-binary's key encoder (not in its type declarations): the stored bytes of a key. */
const keyValueToBuffer = (lmdb as unknown as { keyValueToBuffer(key: unknown): Uint8Array }).keyValueToBuffer;

const json = { 'content-type': 'application/json' };

async function call(node: TesseraNode, method: string, path: string, body?: unknown): Promise<unknown> {
  const result = await httpRequest(node.origin, method, path, { authorization: `Bearer ${node.adminToken}`, ...json }, body === undefined ? undefined : JSON.stringify(body), 3_600_000);
  if (result.status >= 300) throw new Error(`${method} ${path}: HTTP ${result.status} ${result.body.slice(0, 300)}`);
  return JSON.parse(result.body || '{}');
}

async function seed(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-bytes-'));
  const cleanup = new Cleanup();
  try {
    const node = await startTessera({ main: env.LMDB_BYTES_MAIN ?? 'dist/src/cli/main.js', cpu: undefined, cleanup, dataDir });
    const first = (await call(node, 'POST', '/resources/v3alpha/users', { human: { username: 'scale.user-1', profile: { givenName: 'Scale', familyName: 'User -1' }, email: { address: 'scale.user-1@example.com' } } })) as { details: { resourceOwner: { id: string } } };
    const orgId = first.details.resourceOwner.id;
    for (let i = 0; i < ORGS; i++) await call(node, 'POST', '/resources/v3alpha/organizations', { name: `Scale Organization ${i}` });
    const started = performance.now();
    for (let from = 0; from < USERS; from += IMPORT_USERS) {
      const to = Math.min(USERS, from + IMPORT_USERS);
      const body = importDocument(orgId, from, to);
      const reply = (await call(node, 'POST', '/admin/v1/import', body)) as { counts: { human_user?: { created: number } } };
      if (reply.counts.human_user?.created !== to - from) throw new Error(`import created ${JSON.stringify(reply.counts.human_user)} of ${to - from}`);
    }
    process.stderr.write(`seeded ${ORGS} organizations and ${USERS} users (import ${((performance.now() - started) / 1000).toFixed(1)} s) in ${dataDir}\n`);
    await node.server.stop();
  } finally {
    await cleanup.run();
  }
  return dataDir;
}

interface Kind {
  entries: number;
  keyBytes: number;
  valueBytes: number;
}

/** table.index by index code (src/store/lmdb-index-codes.ts: numbered in catalog order). */
const INDEX_NAMES = new Map(INDEX_CATALOG.tables.flatMap((t) => t.indexes.map((i) => `${t.table}.${i.name}`)).map((name, n) => [indexCode(n), name]));

/** The kind of an entry: table tag plus what tells its rows apart (src/store/keys.ts). */
function kindOf(key: unknown[], eventType: () => string): string {
  const [first, tag, a, b] = key;
  if (first === '~ttl') return key[2] === '~g' ? 'ttl group' : 'ttl index';
  if (first === '~meta') return 'meta';
  // Since catalog version 7 an index key has its code where other keys have their tag.
  if (isIndexCode(tag)) return `i index ${INDEX_NAMES.get(String(tag)) ?? `code ${String(tag)}`}`;
  switch (tag) {
    case 'e':
      return `e event ${eventType()}`;
    case 'h':
      return `h head ${String(a)}`;
    case 's':
      return `s stream index ${String(a)}`;
    case 'p':
      return 'p position';
    case 'r':
      return `r record ${String(a)}`;
    case 'u':
      return `u claim ${String(a)}`;
    case 't':
      return `t ttl row ${String(a)}`;
    case 'i':
      return `i index ${String(a)}.${String(b)}`;
    case 'x':
      return `x summary ${String(a)}`;
    case 'n':
      return `n count ${String(a)}`;
    case 'v':
      return `v epoch ${String(a)}`;
    default:
      return `? ${String(tag)}`;
  }
}

/** userIndexes' positions (commonTerms: id, created, changed; then org, username, username_ci, display_name, display_name_ci, email_sort, email_ci, ...). */
const USER_CI_PAIRS: readonly (readonly [number, number])[] = [
  [4, 5],
  [6, 7],
  [8, 9],
];

/** A summary as stored (lmdb-indexes.ts: a repeated term list is an earlier position, [scope] is -1) with its lists expanded. */
function expand(stored: [string, (string[] | number)[]]): [string, string[][]] {
  const terms: string[][] = [];
  for (const list of stored[1]) terms.push(typeof list !== 'number' ? list : list === -1 ? [stored[0]] : (terms[list] ?? []));
  return [stored[0], terms];
}

/** A summary with each term list equal to an earlier one replaced by that one's position (an estimate). */
function dedupe(summary: [string, string[][]]): unknown {
  const seen = summary[1].map((terms) => JSON.stringify(terms));
  return [summary[0], summary[1].map((terms, i) => {
    const j = seen.indexOf(seen[i]!);
    if (j < i) return j;
    return terms.length === 1 && terms[0] === summary[0] ? -1 : terms;
  })];
}

/**
 * The same entries written in key order with MDB_APPEND into a fresh environment (what `tessera
 * backup --compact` writes: src/store/lmdb-backup.ts), and mdb_env_copy2's compacting copy (which
 * only leaves free pages out): what each does to the file.
 */
async function repack(dir: string, raw: ReturnType<typeof open<Buffer, Key>>, users: number): Promise<string[]> {
  const out: string[] = [];
  const compactDir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-compact-'));
  const appendDir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-append-'));
  try {
    await raw.backup(compactDir, true);
    const compact = open<Buffer, Key>(compactDir, { readOnly: true, useVersions: true, encoding: 'binary' });
    out.push(`compacting copy (backup with compact): file ${statSync(join(compactDir, 'data.mdb')).size} bytes; ${describeStats(compact.getStats() as Record<string, number>, users)}`);
    await compact.close();
    await repackLmdbEnvironment(dir, appendDir);
    const target = open<Buffer, Key>(appendDir, { readOnly: true });
    out.push(`appended in key order (MDB_APPEND, tessera backup --compact): file ${statSync(join(appendDir, 'data.mdb')).size} bytes; ${describeStats(target.getStats() as Record<string, number>, users)}`);
    await target.close();
  } finally {
    rmSync(compactDir, { recursive: true, force: true });
    rmSync(appendDir, { recursive: true, force: true });
  }
  return out;
}

function describeStats(stats: Record<string, number>, users: number): string {
  const pages = (stats.treeBranchPageCount ?? 0) + (stats.treeLeafPageCount ?? 0) + (stats.overflowPages ?? 0);
  const pageSize = stats.pageSize ?? 4096;
  return `depth ${stats.treeDepth}, ${stats.treeBranchPageCount} branch + ${stats.treeLeafPageCount} leaf + ${stats.overflowPages} overflow pages (${((pages * pageSize) / users).toFixed(1)} B of tree per user, ${((pages * pageSize) / (stats.entryCount ?? 1)).toFixed(1)} B per entry)`;
}

async function census(dataDir: string, users: number): Promise<void> {
  const dir = join(dataDir, 'lmdb');
  const path = join(dir, 'data.mdb');
  const fileBytes = statSync(path).size;
  // lmdb-store.ts opens the data directory's file as one environment; same options, read-only.
  const raw = open<Buffer, Key>(dir, { readOnly: true, useVersions: true, encoding: 'binary' });
  const decoded = open<unknown, Key>(dir, { readOnly: true, useVersions: true, ...SHARED_STRUCTURES });
  const kinds = new Map<string, Kind>();
  let entries = 0;
  // Estimates on the users' rows: the same values packed with msgpackr shared record structures
  // (the size once a shape's structure is known), and summaries with repeated terms as references.
  const packr = new Packr({ structures: [] });
  const estimate = { recordPacked: 0, recordRecords: 0, eventPacked: 0, eventRecords: 0, summaryPacked: 0, summaryRecords: 0, summaryDeduped: 0, summaries: 0 };
  const equalCi = new Map<string, number>();
  const t0 = performance.now();
  for (const { key, value } of raw.getRange({})) {
    const kind = kindOf(key as unknown[], () => {
      const event = decoded.get(key) as unknown;
      return Array.isArray(event) ? String(event[1]) : '?';
    });
    let k = kinds.get(kind);
    if (k === undefined) kinds.set(kind, (k = { entries: 0, keyBytes: 0, valueBytes: 0 }));
    if (kind === 'r record users') {
      estimate.recordPacked += value.length;
      estimate.recordRecords += packr.pack(decoded.get(key)).length;
    } else if (kind === 'e event user.human.added') {
      estimate.eventPacked += value.length;
      estimate.eventRecords += packr.pack(decoded.get(key)).length;
    } else if (kind === 'x summary users') {
      const summary = expand(decoded.get(key) as [string, (string[] | number)[]]);
      estimate.summaries++;
      estimate.summaryPacked += value.length;
      estimate.summaryRecords += packr.pack(decoded.get(key)).length;
      estimate.summaryDeduped += packr.pack(dedupe(summary)).length;
      const terms = summary[1];
      for (const [raw, ci] of USER_CI_PAIRS) if (JSON.stringify(terms[raw]) === JSON.stringify(terms[ci])) equalCi.set(`${raw}=${ci}`, (equalCi.get(`${raw}=${ci}`) ?? 0) + 1);
    }
    k.entries++;
    k.keyBytes += keyValueToBuffer(key).length;
    k.valueBytes += value.length;
    entries++;
  }
  const stats = raw.getStats() as Record<string, number>;
  const pageSize = stats.pageSize ?? 4096;
  const pages = (stats.treeBranchPageCount ?? 0) + (stats.treeLeafPageCount ?? 0) + (stats.overflowPages ?? 0);
  const rows = [...kinds.entries()].sort((x, y) => y[1].keyBytes + y[1].valueBytes - (x[1].keyBytes + x[1].valueBytes));
  const per = (n: number) => (users > 0 ? (n / users).toFixed(1) : '-');
  const lines: string[] = [];
  lines.push(`directory ${dir}: ${entries} entries walked in ${((performance.now() - t0) / 1000).toFixed(1)} s; per user = divided by ${users}`);
  lines.push('| kind | entries | key B each | value B each | key+value MiB | entries per user | bytes per user |');
  lines.push('|---|---|---|---|---|---|---|');
  let totalKey = 0;
  let totalValue = 0;
  const other: Kind = { entries: 0, keyBytes: 0, valueBytes: 0 };
  let otherKinds = 0;
  for (const [kind, k] of rows) {
    totalKey += k.keyBytes;
    totalValue += k.valueBytes;
    if (k.entries < users / 100) {
      other.entries += k.entries;
      other.keyBytes += k.keyBytes;
      other.valueBytes += k.valueBytes;
      otherKinds++;
      continue;
    }
    lines.push(`| ${kind} | ${k.entries} | ${(k.keyBytes / k.entries).toFixed(1)} | ${(k.valueBytes / k.entries).toFixed(1)} | ${((k.keyBytes + k.valueBytes) / 2 ** 20).toFixed(2)} | ${per(k.entries)} | ${per(k.keyBytes + k.valueBytes)} |`);
  }
  if (other.entries > 0) lines.push(`| other (${otherKinds} kinds under 0.01 per user) | ${other.entries} | ${(other.keyBytes / other.entries).toFixed(1)} | ${(other.valueBytes / other.entries).toFixed(1)} | ${((other.keyBytes + other.valueBytes) / 2 ** 20).toFixed(2)} | ${per(other.entries)} | ${per(other.keyBytes + other.valueBytes)} |`);
  lines.push(`| **sum** | ${entries} | ${(totalKey / entries).toFixed(1)} | ${(totalValue / entries).toFixed(1)} | ${((totalKey + totalValue) / 2 ** 20).toFixed(2)} | ${per(entries)} | ${per(totalKey + totalValue)} |`);
  lines.push('');
  lines.push(`file ${fileBytes} bytes (${per(fileBytes)} per user); getStats: depth ${stats.treeDepth}, ${stats.treeBranchPageCount} branch + ${stats.treeLeafPageCount} leaf + ${stats.overflowPages} overflow pages of ${pageSize} B (${per(pages * pageSize)} B per user), ${stats.entryCount} entries, last page ${stats.lastPageNumber}, free ${JSON.stringify(stats.free ?? null)}`);
  lines.push(`page bytes per entry ${((pages * pageSize) / entries).toFixed(1)}, key+value bytes per entry ${((totalKey + totalValue) / entries).toFixed(1)}, fill ${((100 * (totalKey + totalValue)) / (pages * pageSize)).toFixed(1)} % of the tree's pages`);
  const avg = (n: number, d: number) => (d > 0 ? (n / d).toFixed(1) : '-');
  lines.push(`estimates (users): record ${avg(estimate.recordPacked, estimate.summaries)} B -> ${avg(estimate.recordRecords, estimate.summaries)} B with shared record structures; event user.human.added ${avg(estimate.eventPacked, estimate.summaries)} -> ${avg(estimate.eventRecords, estimate.summaries)} B; summary ${avg(estimate.summaryPacked, estimate.summaries)} -> ${avg(estimate.summaryRecords, estimate.summaries)} B with structures, ${avg(estimate.summaryDeduped, estimate.summaries)} B with repeated terms as references (lmdb-indexes.ts packSummary)`);
  lines.push(`user summaries whose _ci terms equal the raw index's terms (index positions of userIndexes): ${[...equalCi.entries()].map(([pair, n]) => `${pair}: ${n}`).join(', ') || 'none'} of ${estimate.summaries}`);
  if (env.LMDB_BYTES_REPACK === '1') lines.push(...(await repack(dir, raw, users)));
  process.stdout.write(`${lines.join('\n')}\n`);
  await raw.close();
  await decoded.close();
}

const dir = process.argv[2] ?? (await seed());
await census(dir, USERS);
