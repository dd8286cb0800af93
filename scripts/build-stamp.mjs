// The build stamp: one SHA-256 over every input of `npm run build` (the TypeScript sources, the templates, the
// protos, tsconfig.json and tsconfig.build.json, package-lock.json and the build scripts). build.mjs writes it to
// dist/.build-stamp after a successful build; start.mjs rebuilds only when it differs.
// Contents are hashed, not mtimes, so a checkout that touches files without changing them
// does not force a rebuild and an edit within the same second is still seen.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Folders whose sources the build compiles or generates from; src/gen is an output. */
const SOURCE_DIRS = ['src', 'actors', 'bench', 'proto', 'scripts'];
const SOURCE_FILE = /\.(ts|mts|proto|mjs|eta)$/;
const SKIPPED_DIRS = new Set(['gen', 'node_modules', 'results']);
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

export const STAMP_PATH = join('dist', '.build-stamp');

/** The stamp of the sources under `root` as they are now. */
export function sourceStamp(root) {
  const files = [];
  for (const dir of SOURCE_DIRS) collect(root, join(root, dir), files);
  for (const file of INPUT_FILES) if (existsSync(join(root, file))) files.push(join(root, file));
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(root, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The stamp the last successful build wrote, or undefined when there is none. */
export function builtStamp(root) {
  const path = join(root, STAMP_PATH);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

function collect(root, dir, into) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) collect(root, join(dir, entry.name), into);
    } else if (entry.isFile() && SOURCE_FILE.test(entry.name)) {
      into.push(join(dir, entry.name));
    }
  }
}
