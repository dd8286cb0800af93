/**
 * The dependency rules of style.md §2, checked on every run: actors/ imports nothing from
 * src/; src/ (and bench/) import actors/ only through actors/index.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith('src/gen/'));
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => relative(root, resolve(dirname(join(root, file)), m[1]!)));
}

describe('import boundaries', () => {
  it('actors/ imports nothing from src/', () => {
    const violations = sources('actors').flatMap((f) => importsOf(f).filter((i) => i.startsWith('src/')).map((i) => `${f} → ${i}`));
    expect(violations).toEqual([]);
  });

  it('src/ and bench/ reach actors/ only through actors/index.ts', () => {
    const files = [...sources('src'), ...sources('bench')];
    const violations = files.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('actors/') && i !== 'actors/index.js')
        .map((i) => `${f} → ${i}`),
    );
    expect(violations).toEqual([]);
  });
});
