/**
 * Temporary directories for tests, `<tmpdir>/<prefix>XXXXXX`, each removed by a vitest hook once
 * whoever made it is done: `tempDir` for the test it is made in, `suiteTempDir` / `suiteTempDirs`
 * for the file or describe they are called in.
 *
 * The removal comes after the test's or suite's own clean-up: a test's directories go after its
 * afterEach hooks (onTestFinished), a suite's after the afterAll hooks registered below the call
 * (afterAll hooks run in reverse order of registration), so a store opened in the directory is
 * closed there first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished, TestRunner } from 'vitest';

const remove = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** A new directory, removed when the current test has finished. Call it in a test or a beforeEach (elsewhere it throws and leaves nothing). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    onTestFinished(() => remove(dir));
  } catch (error) {
    remove(dir);
    throw error;
  }
  return dir;
}

/**
 * Call at collection (a file's top level or a describe body): a maker of new directories, all
 * removed after that file's or describe's tests. The maker may be called in its tests and hooks.
 * (Called in a test or hook, vitest would drop the afterAll and the directories would stay: in a
 * test it throws; in a beforeAll nothing tells.)
 */
export function suiteTempDirs(prefix: string): () => string {
  if (TestRunner.getCurrentTest() !== undefined) throw new Error('suiteTempDirs is called at collection, not in a test');
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) remove(dir);
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

/** Call at collection: one new directory, made now and removed after that file's or describe's tests (in a describe that may be skipped it would stay: make it in a beforeAll with a suiteTempDirs maker). */
export function suiteTempDir(prefix: string): string {
  return suiteTempDirs(prefix)();
}
