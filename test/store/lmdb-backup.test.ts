/**
 * The LMDB copy behind `tessera backup`: page for page, and compact (every entry written again
 * in key order). Both copies must hold exactly the source's entries — keys, values (records
 * with shared msgpack structures among them) and entry versions; the compact one in fewer pages.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Key } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyLmdbEnvironment } from '../../src/store/lmdb-backup.js';
import { SHARED_STRUCTURES } from '../../src/store/lmdb-store.js';

type Entry = { key: Key; value: unknown; version: number | undefined };

function openStore(path: string, readOnly = false) {
  return open<unknown, Key>(path, { useVersions: true, readOnly, ...SHARED_STRUCTURES });
}

function entriesOf(path: string): Entry[] {
  const db = openStore(path, true);
  try {
    return [...db.getRange({ versions: true })].map(({ key, value, version }) => ({ key, value, version }));
  } finally {
    void db.close();
  }
}

function leafPages(path: string): number {
  const db = open<unknown, Key>(path, { readOnly: true });
  try {
    return (db.getStats() as { treeLeafPageCount: number }).treeLeafPageCount;
  } finally {
    void db.close();
  }
}

describe('copyLmdbEnvironment', () => {
  let scratch: string;
  const source = () => join(scratch, 'source');
  /** A new empty directory, as `tessera backup` gives the copy. */
  const target = (name: string) => {
    mkdirSync(join(scratch, name));
    return join(scratch, name);
  };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'tessera-lmdb-copy-'));
    const db = openStore(source());
    // Keys in increasing order inside a range that other keys follow, as a node writes rows and
    // events: every full page splits in half and the left half is never written again.
    await db.put(['z', 'after the range'], { kind: 'marker' }, 1);
    await db.transaction(() => {
      for (let i = 0; i < 20_000; i++) {
        const id = String(i).padStart(8, '0');
        void db.put(['r', id], { id, state: 'active', profile: { givenName: `Given ${i}`, familyName: 'Family' }, tags: [i % 7, i % 11] }, i + 2);
      }
    });
    await db.put(['b', 'no version'], 'a plain string');
    await db.close();
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('page for page without compact, entry for entry in full pages with it', async () => {
    await copyLmdbEnvironment(source(), target('plain'), { compact: false });
    await copyLmdbEnvironment(source(), target('compact'), { compact: true });

    const original = entriesOf(source());
    expect(original).toHaveLength(20_003); // the 20,002 put and the shared msgpack structures
    expect(original.find((e) => JSON.stringify(e.key) === '["r","00000042"]')).toEqual({
      key: ['r', '00000042'],
      value: { id: '00000042', state: 'active', profile: { givenName: 'Given 42', familyName: 'Family' }, tags: [0, 9] },
      version: 44,
    });
    expect(entriesOf(join(scratch, 'plain'))).toEqual(original);
    expect(entriesOf(join(scratch, 'compact'))).toEqual(original);

    // The plain copy keeps the source's half-full pages (the control); the compact one fills them.
    const pages = leafPages(source());
    expect(leafPages(join(scratch, 'plain'))).toBe(pages);
    expect(leafPages(join(scratch, 'compact'))).toBeLessThan(pages * 0.6);
    expect(statSync(join(scratch, 'compact', 'data.mdb')).size).toBeLessThan(statSync(join(scratch, 'plain', 'data.mdb')).size);
  });

  it('a compact copy can be written to like the store it came from', async () => {
    const copy = target('compact-written');
    await copyLmdbEnvironment(source(), copy, { compact: true });
    const db = openStore(copy);
    try {
      // New records with a new shape and with the copied shapes, and puts into the middle of full pages.
      await db.put(['r', '00000042.5'], { id: 'between', state: 'active', profile: { givenName: 'New', familyName: 'Shape' }, tags: [] }, 1);
      await db.put(['c', 'new'], { another: 'shape', entirely: true }, 2);
      expect(db.get(['r', '00000042.5'])).toEqual({ id: 'between', state: 'active', profile: { givenName: 'New', familyName: 'Shape' }, tags: [] });
      expect(db.get(['c', 'new'])).toEqual({ another: 'shape', entirely: true });
      expect(db.get(['r', '00000043'])).toMatchObject({ id: '00000043', profile: { givenName: 'Given 43' } });
      expect(db.getEntry(['r', '00000043'])?.version).toBe(45);
    } finally {
      await db.close();
    }
  });
});
