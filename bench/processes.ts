/**
 * Child processes of the benchmark: spawning servers (optionally pinned to a core with
 * taskset) and waiting for their `listening` line, reading their CPU time from /proc, and a
 * cleanup registry that stops every process and removes every temp directory on success,
 * error, SIGINT and SIGTERM.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';

/** Lines of a child's output kept for error messages. */
const KEPT_LINES = 40;

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  /** The parsed JSON log line whose `msg` is `listening`. */
  readonly listening: Readonly<Record<string, unknown>>;
  /** The exit code once exited (null when killed by a signal), undefined while running. */
  exitCode(): number | null | undefined;
  /** Resolves with the exit code when the process exits, expectedly or not. */
  readonly exited: Promise<number | null>;
  /** Whether stop() was called (an exit before that is a crash). */
  stopRequested(): boolean;
  /** The last lines of stdout and stderr, for error messages. */
  recentOutput(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface SpawnServerOptions {
  readonly name: string;
  /** The process is registered here as soon as it is spawned (before it listens). */
  readonly cleanup: Cleanup;
  /** Arguments to `node` (script first). */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Pin the process to this CPU with taskset; unpinned when undefined. */
  readonly cpu?: number | undefined;
  readonly readyTimeoutMs?: number;
  /** Every line of the process's stdout, as it comes (e.g. V8's `--trace-gc-nvp` lines). */
  readonly onLine?: ((line: string) => void) | undefined;
}

/** Stops processes and removes directories, newest first; every task runs once. */
export class Cleanup {
  private readonly tasks: { readonly label: string; readonly run: () => Promise<void>; readonly sync: () => void }[] = [];
  private running: Promise<void> | undefined;

  /** A process to stop: `stop` on the normal path, `kill` (synchronous) from an `exit` handler. */
  addProcess(label: string, stop: () => Promise<unknown>, kill: () => void): void {
    this.tasks.push({
      label,
      run: async () => {
        await stop();
      },
      sync: kill,
    });
  }

  addDirectory(path: string): void {
    const remove = (): void => rmSync(path, { recursive: true, force: true });
    this.tasks.push({ label: `remove ${path}`, run: async () => remove(), sync: remove });
  }

  /** Runs every task once (later calls wait for the first); errors are reported, not thrown. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (const task of this.tasks.splice(0).reverse()) {
        try {
          await task.run();
        } catch (error) {
          process.stderr.write(`bench: cleanup (${task.label}) failed: ${describeError(error)}\n`);
        }
      }
    })();
    return this.running;
  }

  /** Ctrl-C / SIGTERM stop everything and exit; a crash of the runner still kills the children. */
  installSignalHandlers(): void {
    const onSignal = (signal: NodeJS.Signals, code: number) => {
      process.stderr.write(`\nbench: ${signal}, stopping servers…\n`);
      void this.run().finally(() => process.exit(code));
    };
    process.once('SIGINT', () => onSignal('SIGINT', 130));
    process.once('SIGTERM', () => onSignal('SIGTERM', 143));
    process.once('exit', () => {
      for (const task of this.tasks.splice(0).reverse()) {
        try {
          task.sync();
        } catch {
          // best effort while exiting
        }
      }
    });
  }
}

export function spawnServer(options: SpawnServerOptions): Promise<ServerProcess> {
  // taskset execs node in place, so the pid below is the server's own either way.
  const child =
    options.cpu === undefined
      ? spawn(process.execPath, options.args, { env: { ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('taskset', ['-c', String(options.cpu), process.execPath, ...options.args], { env: { ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const recent: string[] = [];
  const keep = (line: string): void => {
    recent.push(line);
    if (recent.length > KEPT_LINES) recent.shift();
  };
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      keep(`[exit] code ${code}${signal === null ? '' : `, signal ${signal}`}`);
      exitCode = code;
      resolve(code);
    });
  });
  let stopping = false;
  const stop = async (graceMs = 15_000): Promise<number | null> => {
    stopping = true;
    if (exitCode !== undefined || child.pid === undefined) return exitCode ?? null;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(killer);
    return code;
  };
  options.cleanup.addProcess(`stop ${options.name}`, stop, () => {
    if (exitCode === undefined) child.kill('SIGKILL');
  });
  // Both pipes are drained for the whole life of the child, so it can never block on a full pipe.
  createInterface({ input: child.stderr }).on('line', (line) => keep(`[stderr] ${line}`));
  const lines = createInterface({ input: child.stdout });

  return new Promise<ServerProcess>((resolve, reject) => {
    const timeoutMs = options.readyTimeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not report listening within ${timeoutMs} ms:\n${recent.join('\n')}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} could not be started: ${error.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code} before listening:\n${recent.join('\n')}`));
    });
    let listening = false;
    lines.on('line', (line) => {
      keep(line);
      options.onLine?.(line);
      // Once listening, lines are only kept: a node under load writes an access line per
      // request, and parsing each would cost the load generator's core (it runs here).
      if (listening) return;
      const entry = parseJsonLine(line);
      if (entry?.msg !== 'listening' || child.pid === undefined) return;
      clearTimeout(timer);
      listening = true;
      resolve({
        name: options.name,
        pid: child.pid,
        listening: entry,
        exitCode: () => exitCode,
        exited,
        stopRequested: () => stopping,
        recentOutput: () => recent.join('\n'),
        stop,
      });
    });
  });
}

function parseJsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc CPU times (`getconf CLK_TCK`, 100 on Linux almost always). */
export function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/** utime + stime of a process (all its threads) in seconds, from /proc/<pid>/stat. */
export function processCpuSeconds(pid: number, ticksPerSecond: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) is parenthesised and may contain spaces: count fields after the last ')'.
  // The rest starts at field 3 (state); utime and stime are fields 14 and 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(rest[14 - 3]);
  const stime = Number(rest[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`cannot parse /proc/${pid}/stat`);
  return (utime + stime) / ticksPerSecond;
}

/**
 * cutime + cstime of this process in seconds: the CPU of its children that have exited and been
 * waited for (libuv reaps each child before its `close` event), from /proc/self/stat. The
 * difference around one child's whole life is that child's CPU (wrk: its own, even though it
 * has exited when it is read).
 */
export function reapedChildrenCpuSeconds(ticksPerSecond: number): number {
  const rest = statFields('self');
  // cutime and cstime are fields 16 and 17.
  const cutime = Number(rest[16 - 3]);
  const cstime = Number(rest[17 - 3]);
  if (!Number.isFinite(cutime) || !Number.isFinite(cstime)) throw new Error('cannot parse /proc/self/stat');
  return (cutime + cstime) / ticksPerSecond;
}

/** One thread of a process: its name (`comm`, 15 characters at most) and utime + stime in seconds. */
export interface ThreadCpu {
  readonly tid: number;
  readonly name: string;
  readonly cpuS: number;
  /** The user (utime) and kernel (stime) parts of cpuS. */
  readonly userS: number;
  readonly sysS: number;
}

/** Every thread of a process with its CPU so far (/proc/<pid>/task/<tid>/stat); threads that exit meanwhile are left out. */
export function threadCpuSeconds(pid: number, ticksPerSecond: number): ThreadCpu[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const threads: ThreadCpu[] = [];
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const userS = Number(rest[14 - 3]) / ticksPerSecond;
    const sysS = Number(rest[15 - 3]) / ticksPerSecond;
    threads.push({ tid: Number(tid), name, cpuS: userS + sysS, userS, sysS });
  }
  return threads;
}

/** CPU time of one thread so far in ns (Linux schedstat, not clock ticks); 0 when it is gone. */
export function threadCpuNs(pid: number, tid: number | string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** CPU time of every thread of a process so far in ns (schedstat; threads that ended are not counted). */
export function processCpuNs(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => sum + threadCpuNs(pid, tid), 0);
}

/** The fields of /proc/<pid>/stat from field 3 (state) on: comm (field 2) is parenthesised and may contain spaces. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU counters (ticks) of one /proc/stat line: the whole machine (`all`) or one CPU. */
export interface CpuTicks {
  readonly total: number;
  /** idle + iowait */
  readonly idle: number;
  readonly steal: number;
}

/** Every `cpu` line of /proc/stat, keyed `all`, `0`, `1`, …; undefined when unreadable. */
export function cpuTicks(): Map<string, CpuTicks> | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const result = new Map<string, CpuTicks>();
  for (const line of text.split('\n')) {
    const match = /^cpu(\d*)\s+(.*)$/.exec(line);
    if (match === null) continue;
    // user nice system idle iowait irq softirq steal (guest time is already counted in user)
    const values = (match[2] ?? '').trim().split(/\s+/).slice(0, 8).map(Number);
    result.set(match[1] === '' ? 'all' : match[1]!, {
      total: values.reduce((a, b) => a + b, 0),
      idle: (values[3] ?? 0) + (values[4] ?? 0),
      steal: values[7] ?? 0,
    });
  }
  return result;
}

/** The absolute path of an executable on PATH, or undefined. */
export function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Moves every thread of this process to one CPU (threads created later inherit it). */
export function pinSelf(cpu: number): void {
  const result = spawnSync('taskset', ['-a', '-cp', String(cpu), String(process.pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset failed: ${(result.stderr || result.stdout || '').trim()}`);
}

/** The CPUs this process may run on (sched_getaffinity through taskset), or undefined. */
export function allowedCpus(): number[] | undefined {
  const result = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  if (result.status !== 0) return undefined;
  const list = /list:\s*([\d,\-\s]+)$/m.exec(result.stdout)?.[1]?.trim();
  if (list === undefined) return undefined;
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const [from, to] = part.split('-').map(Number);
    if (from === undefined || !Number.isInteger(from)) return undefined;
    for (let cpu = from; cpu <= (to ?? from); cpu++) cpus.push(cpu);
  }
  return cpus;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The id of the last committed write transaction of an LMDB environment (`data.mdb`): the larger
 * `mm_txnid` of its two meta pages (4 KiB pages, as lmdb-js opens the store). Undefined when not
 * readable. Two readings bracket a run: their difference is the commits in between.
 */
export function lmdbLastTxnId(dataDir: string): number | undefined {
  try {
    const fd = openSync(join(dataDir, 'data.mdb'), 'r');
    try {
      const meta = Buffer.alloc(8);
      let last = 0;
      for (const page of [0, LMDB_PAGE]) {
        readSync(fd, meta, 0, 8, page + LMDB_META_TXNID);
        last = Math.max(last, Number(meta.readBigUInt64LE(0)));
      }
      return last;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

const LMDB_PAGE = 4096;
/** Offset of mm_txnid in an lmdb-js 3.5 meta page (read off a file after a known number of commits). */
const LMDB_META_TXNID = 152;
