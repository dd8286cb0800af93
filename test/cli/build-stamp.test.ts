/**
 * The build stamp `npm start` compares with the sources (scripts/build-stamp.mjs): it changes
 * with any compiled or generated-from input and with nothing else.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { sourceStamp } from '../../scripts/build-stamp.mjs';
import { tempDir } from '../temp-dirs.js';

let root: string;

function write(path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

beforeEach(() => {
  root = tempDir('tessera-stamp-');
  write('src/cli/main.ts', 'export {};\n');
  write('actors/index.ts', 'export const a = 1;\n');
  write('proto/platform/x.proto', 'syntax = "proto3";\n');
  write('tsconfig.json', '{}\n');
  write('package-lock.json', '{"lockfileVersion":3}\n');
});

describe('sourceStamp', () => {
  it('stays the same when nothing changed, even when files are touched', () => {
    const before = sourceStamp(root);
    utimesSync(join(root, 'src/cli/main.ts'), new Date(), new Date(Date.now() + 60_000));
    expect(sourceStamp(root)).toBe(before);
  });

  it.each([
    ['a TypeScript source', 'src/cli/main.ts', 'export const changed = true;\n'],
    ['a new domain file', 'actors/user.ts', 'export {};\n'],
    ['a proto', 'proto/platform/x.proto', 'syntax = "proto3";\npackage x;\n'],
    ['tsconfig.json', 'tsconfig.json', '{"compilerOptions":{}}\n'],
    ['the lockfile', 'package-lock.json', '{"lockfileVersion":3,"packages":{}}\n'],
    ['a build script', 'scripts/build.mjs', '// changed\n'],
  ])('changes with %s', (_what, path, text) => {
    const before = sourceStamp(root);
    write(path, text);
    expect(sourceStamp(root)).not.toBe(before);
  });

  it('ignores build outputs and non-source files', () => {
    const before = sourceStamp(root);
    write('src/gen/platform/x_pb.ts', 'export {};\n');
    write('bench/results/run.json', '{}\n');
    write('src/README.md', 'notes\n');
    expect(sourceStamp(root)).toBe(before);
  });
});
