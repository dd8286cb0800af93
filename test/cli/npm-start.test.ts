/**
 * `npm start` as an operator runs it: the node answers /readyz; SIGTERM to the npm process stops
 * the node gracefully (no process of the tree left, the port free again); a start with unchanged
 * sources does not rebuild (dist/ and the build stamp stay untouched).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { builtStamp, sourceStamp, STAMP_PATH } from '../../scripts/build-stamp.mjs';
import { MALLOC_SETTINGS } from '../../src/cli/malloc-settings.js';
import { suiteTempDir } from '../temp-dirs.js';

const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const dataDir = suiteTempDir('tessera-npm-start-');
/** Every process a start created, killed after a failed assertion left them running. */
const spawned = new Set<number>();
afterAll(() => {
  for (const pid of spawned) if (running(pid)) process.kill(pid, 'SIGKILL');
});

interface Started {
  readonly npm: ChildProcess;
  readonly logs: Record<string, unknown>[];
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A port nobody listens on (the kernel's pick, released again). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether something can listen on the port (the node released it). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Parent pid and state of a process from /proc, or undefined when it does not exist. */
function procStat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** Every process below `pid` (children, grandchildren, ...). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat !== undefined) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(name)]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Running: exists and is not a zombie (an exited process its parent has not reaped yet). */
function running(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

function commandLine(pid: number): string {
  return argv(pid).join(' ');
}

function argv(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** The environment a process started with (/proc/<pid>/environ), as NAME=value entries. */
function environment(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((entry) => entry !== '');
}

/** A node process running the CLI (an absolute or a relative path to dist/), not a shell naming it. */
function isTesseraNode(pid: number): boolean {
  const [program, script] = argv(pid);
  return program !== undefined && /(^|\/)node$/.test(program) && script !== undefined && script.endsWith('dist/src/cli/main.js');
}

/** `npm start` in the repository, resolved once the node logged "listening". */
async function npmStart(port: number): Promise<Started> {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      TESSERA_DATA_DIR: dataDir,
      TESSERA_PORT: String(port),
      TESSERA_GRPC_PORT: '0',
      TESSERA_HOST: '127.0.0.1',
      TESSERA_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  npm.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: npm.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return; // npm's banner
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'listening') resolve();
    });
    void exited.then(({ code }) => reject(new Error(`npm start exited with ${code} before listening:\n${stderr}`)));
  });
  return { npm, logs, stderr: () => stderr, exited };
}

/** The processes below npm now, remembered for the clean-up. */
function processTree(started: Started): number[] {
  const tree = descendants(started.npm.pid!);
  for (const pid of [started.npm.pid!, ...tree]) spawned.add(pid);
  return tree;
}

/** SIGTERM to npm alone; returns how npm ended once it did. */
async function stopNpm(started: Started) {
  started.npm.kill('SIGTERM');
  return started.exited;
}

describe('npm start', () => {
  it('serves, and SIGTERM to npm stops the node gracefully with nothing left behind', { timeout: 300_000 }, async () => {
    const port = await freePort();
    const started = await npmStart(port);
    const tree = processTree(started);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);

    const nodes = tree.filter(isTesseraNode);
    expect(nodes).toHaveLength(1); // positive control: the node is found in npm's tree while it runs
    expect(running(nodes[0]!)).toBe(true);
    // The node runs with glibc's malloc settings of src/cli/malloc-settings.ts; npm, started
    // without them, does not have them (the control: they come from the start script).
    const mallocOf = (pid: number) => environment(pid).filter((entry) => entry.startsWith('MALLOC_')).sort();
    expect(mallocOf(nodes[0]!)).toEqual(Object.entries(MALLOC_SETTINGS).map(([name, value]) => `${name}=${value}`).sort());
    expect(mallocOf(started.npm.pid!)).toEqual([]);

    const { code } = await stopNpm(started);
    expect(tree.filter(running).map((pid) => `${pid} ${commandLine(pid)}`)).toEqual([]);
    expect(code).toBe(0); // npm waited for the node and reports its exit code
    expect(started.logs.map((entry) => entry.msg)).toContain('stopped'); // drained, not killed
    expect(await canListen(port)).toBe(true);
    // The build that ran (when dist/ was older than the sources) left a stamp of these sources.
    expect(builtStamp(ROOT)).toBe(sourceStamp(ROOT));
  });

  it('does not rebuild when the sources did not change', { timeout: 300_000 }, async () => {
    expect(builtStamp(ROOT)).toBe(sourceStamp(ROOT)); // set by the previous test's start
    const stampMtime = statSync(join(ROOT, STAMP_PATH)).mtimeMs;
    const mainMtime = statSync(MAIN).mtimeMs;

    const port = await freePort();
    const started = await npmStart(port);
    const tree = processTree(started);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    // A build would rewrite every dist/ file (tsc emits them all) and the stamp after it.
    expect(statSync(MAIN).mtimeMs).toBe(mainMtime);
    expect(statSync(join(ROOT, STAMP_PATH)).mtimeMs).toBe(stampMtime);
    expect(started.stderr()).not.toContain('building');

    expect((await stopNpm(started)).code).toBe(0);
    expect(tree.filter(running)).toEqual([]);
    expect(existsSync(MAIN)).toBe(true);
  });
});
