/**
 * What random reads of an LMDB file already in the page cache add to a process's RSS (issue 15:
 * a million-user node's VmRSS is mostly LMDB's file pages), with and without LMDB's
 * `MDB_NORDAHEAD` (lmdb-js `noReadAhead`: the map advised random).
 *
 * `node dist/bench/lmdb-fault-around.js` writes FAULT_ENTRIES (default 300,000) entries of ~900
 * bytes into a scratch file (removed at the end), then, in a fresh child process per variant and
 * round (FAULT_ROUNDS, default 2), reads FAULT_READS (default 5,000) keys spread over the file and
 * prints RssFile before and after, and the growth per read.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';

const ENTRIES = Number(process.env.FAULT_ENTRIES ?? 300_000);
const READS = Number(process.env.FAULT_READS ?? 5_000);
const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 2);

const key = (n: number) => `user-${n.toString().padStart(7, '0')}`;
const rssFileKiB = () => Number(/^RssFile:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN);

/** The child: reads spread over the file, reports RssFile growth as JSON. */
function readAndReport(path: string, noReadAhead: boolean): void {
  // lmdb-js passes noReadAhead on as MDB_NORDAHEAD (open.js); its typings do not list it.
  const options: RootDatabaseOptionsWithPath & { readonly noReadAhead: boolean } = { path, readOnly: true, noReadAhead };
  const db = open<unknown, string>(options);
  const before = rssFileKiB();
  let found = 0;
  for (let i = 0; i < READS; i++) if (db.get(key((i * 104_729) % ENTRIES)) !== undefined) found += 1;
  process.stdout.write(JSON.stringify({ found, before, after: rssFileKiB() }));
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-fault-around-'));
  try {
    const db = open<unknown, string>({ path: dir, noSync: true });
    const value = 'x'.repeat(900);
    for (let batch = 0; batch < ENTRIES / 10_000; batch++) {
      db.transactionSync(() => {
        for (let i = 0; i < 10_000; i++) {
          const n = batch * 10_000 + i;
          db.putSync(key((n * 7919) % ENTRIES), { value, n });
        }
      });
    }
    db.close();
    const fileMiB = (Number(spawnSync('stat', ['-c', '%s', join(dir, 'data.mdb')], { encoding: 'utf8' }).stdout) / 1048576).toFixed(0);
    console.log(`${ENTRIES} entries, data.mdb ${fileMiB} MiB (in the page cache: just written); ${READS} reads per run`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const noReadAhead of [false, true]) {
        const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'child', dir, String(noReadAhead)], { encoding: 'utf8' });
        const r = JSON.parse(child.stdout) as { found: number; before: number; after: number };
        console.log(`round ${round}, noReadAhead ${noReadAhead}: found ${r.found}, RssFile ${(r.before / 1024).toFixed(1)} -> ${(r.after / 1024).toFixed(1)} MiB, ${((r.after - r.before) / READS).toFixed(1)} KiB per read`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') readAndReport(process.argv[3]!, process.argv[4] === 'true');
else main();
