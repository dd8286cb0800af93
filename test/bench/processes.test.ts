/**
 * The bench's counters read off /proc and LMDB's file (bench/processes.ts): commits counted from
 * `data.mdb`'s meta pages, and a thread's CPU split into user and kernel time. No timing asserted.
 */
import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { clockTicksPerSecond, lmdbLastTxnId, threadCpuSeconds } from '../../bench/processes.js';
import { tempDir } from '../temp-dirs.js';

describe('lmdbLastTxnId', () => {
  it('counts the commits between two readings, one per awaited write', async () => {
    const dir = tempDir('bench-processes-');
    const db = open(dir, { useVersions: true });
    await db.put('first', 1);
    const before = lmdbLastTxnId(dir);
    for (let i = 0; i < 5; i += 1) await db.put(`key${i}`, { i });
    // Two puts in one event turn share one commit.
    db.put('a', 1);
    await db.put('b', 2);
    const after = lmdbLastTxnId(dir);
    await db.close();
    expect(before).toBeGreaterThan(0);
    expect((after ?? 0) - (before ?? 0)).toBe(6);
  });

  it('is undefined without an LMDB file', () => {
    expect(lmdbLastTxnId(tempDir('bench-processes-'))).toBeUndefined();
  });
});

describe('threadCpuSeconds', () => {
  it('splits every thread of this process into user and kernel time', () => {
    const threads = threadCpuSeconds(process.pid, clockTicksPerSecond());
    const main = threads.find((thread) => thread.tid === process.pid);
    expect(main).toBeDefined();
    for (const thread of threads) expect(thread.cpuS).toBeCloseTo(thread.userS + thread.sysS, 9);
  });
});
