// Build: third-party protos → generated code (buf + protoc-gen-es) → TypeScript compile.
// google/api and google/rpc protos come from the npm package google-proto-files and are
// copied into a git-ignored folder, because the schema registry is unreachable offline.
import { cpSync, mkdirSync, rmSync, existsSync, statSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sourceStamp, STAMP_PATH } from './build-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Taken before compiling: a source edited during the build leaves the stamp stale, so the next
// `npm start` builds again.
const stamp = sourceStamp(root);
// Dropped first: a failed build must not leave an older stamp vouching for a half-written dist/.
rmSync(join(root, STAMP_PATH), { force: true });
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

const thirdParty = join(root, '.proto-deps');
const googleProtos = join(root, 'node_modules', 'google-proto-files', 'google');
const wanted = ['api/annotations.proto', 'api/http.proto', 'rpc/error_details.proto', 'rpc/status.proto'];
for (const file of wanted) {
  const to = join(thirdParty, 'google', file);
  mkdirSync(dirname(to), { recursive: true });
  cpSync(join(googleProtos, file), to);
}

if (isStale()) {
  // Generate aside, then swap, so a concurrent build never sees a half-written src/gen.
  const out = join(root, 'src', `.gen-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  run(bin('buf'), ['generate', '--template', JSON.stringify(genTemplate(`src/.gen-${process.pid}`))]);
  rmSync(join(root, 'src', 'gen'), { recursive: true, force: true });
  renameSync(out, join(root, 'src', 'gen'));
}
run(bin('tsc'), ['-p', 'tsconfig.build.json']);
copyTemplates(join(root, 'src'), join(root, 'dist', 'src'));
// Written last, only after tsc succeeded (execFileSync throws otherwise): start.mjs trusts it.
writeFileSync(join(root, STAMP_PATH), `${stamp}\n`);

/**
 * HTML templates (a templates/ folder of *.eta files anywhere under src/) are read by the compiled modules beside them, so
 * they are copied into dist/ (tsc copies only what it compiles); stale copies are removed first.
 */
function copyTemplates(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'gen') continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.name === 'templates') {
      mkdirSync(target, { recursive: true });
      for (const file of readdirSync(target)) if (file.endsWith('.eta')) rmSync(join(target, file));
      for (const file of readdirSync(source)) if (file.endsWith('.eta')) cpSync(join(source, file), join(target, file));
    }
    copyTemplates(source, target);
  }
}

/** The buf.gen.yaml template with another output folder. */
function genTemplate(out) {
  return {
    version: 'v2',
    plugins: [{ local: bin('protoc-gen-es'), out, include_imports: true, opt: ['target=ts', 'import_extension=js'] }],
  };
}

/** Regenerate only when a .proto is newer than the generated folder. */
function isStale() {
  const gen = join(root, 'src', 'gen');
  if (!existsSync(gen)) return true;
  const generatedAt = statSync(gen).mtimeMs;
  const newest = newestMtime(join(root, 'proto'));
  return newest > generatedAt;
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}
