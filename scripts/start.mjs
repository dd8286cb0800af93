// `npm start`: builds only when the sources differ from the last successful build (see
// build-stamp.mjs), then runs `tessera start` as a child and behaves like it: SIGTERM, SIGINT
// and SIGHUP are passed on (to the build while it runs, then to the node), and this process
// exits with the node's code, or dies of the node's signal. npm and its shell thus never leave
// a node behind when they are signalled.
// The node gets glibc's malloc setting (src/cli/malloc-settings.ts) unless the environment
// chose its own. Service managers run `node dist/src/cli/main.js start` directly and set it
// in the unit (docs/operations/running.md).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtStamp, sourceStamp } from './build-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const main = join(root, 'dist', 'src', 'cli', 'main.js');
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'];

let current; // the child running now (build, then node)
let stopRequested = false;
for (const signal of FORWARDED) {
  process.on(signal, () => {
    stopRequested = true;
    current?.kill(signal);
  });
}

/** Runs a child with our stdio (and our environment, or `env`); resolves with how it ended. */
function run(args, env = process.env) {
  return new Promise((resolve) => {
    current = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env });
    current.once('error', (error) => {
      process.stderr.write(`tessera: cannot run ${args[0]}: ${error.message}\n`);
      resolve({ code: 1, signal: null });
    });
    current.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Leaves the way the child did: same exit code, or the same signal. */
function exitLike({ code, signal }) {
  if (signal === null) process.exit(code ?? 1);
  for (const forwarded of FORWARDED) process.removeAllListeners(forwarded);
  process.kill(process.pid, signal);
}

async function start() {
  if (!existsSync(main) || builtStamp(root) !== sourceStamp(root)) {
    process.stderr.write('tessera: sources changed since the last build; building\n');
    const build = await run([join(root, 'scripts', 'build.mjs')]);
    if (build.code !== 0 || build.signal !== null) return exitLike(build);
  }
  if (stopRequested) return exitLike({ code: 0, signal: null });
  const { mallocSettingsFor } = await import(pathToFileURL(join(root, 'dist', 'src', 'cli', 'malloc-settings.js')).href);
  return exitLike(await run([main, 'start', ...process.argv.slice(2)], { ...process.env, ...mallocSettingsFor(process.env) }));
}

await start();
