/**
 * Starts a real Tessera node as a child process (the compiled dist/, as `npm start` runs it)
 * on free ports with a temporary data directory, and hands tests its URLs and admin token.
 *
 * The node's store is LMDB in the data directory, or, with TESSERA_TEST_STORE=postgres (what
 * `npm run test:postgres` sets), a fresh schema of TESSERA_TEST_DATABASE_URL per data directory,
 * dropped by cleanup(). A suite that configures its own database (TESSERA_DATABASE_URL in
 * `env`) keeps it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

/** Which store the e2e nodes run on (TESSERA_TEST_STORE=postgres, else LMDB). */
export const TEST_STORE: 'lmdb' | 'postgres' = process.env.TESSERA_TEST_STORE === 'postgres' ? 'postgres' : 'lmdb';

/** Where a node keeps its data: its LMDB directory, or a PostgreSQL schema. */
export type NodeStore = { readonly kind: 'lmdb'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

/** The file in a data directory naming its PostgreSQL schema, so a restart on that directory finds its data. */
const SCHEMA_FILE = 'test-postgres-schema';

/** The file in a data directory holding the test clock's offset in milliseconds (src/cli/test-clock.ts). */
const CLOCK_FILE = 'test-clock-offset';

export interface NodeOptions {
  /** Reuse a data directory (restart tests); a fresh temp dir otherwise. */
  readonly dataDir?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  /** Run the node on a test clock (TESSERA_TEST_MODE=1, TESSERA_TEST_CLOCK_FILE in the data directory) that advanceClock moves. */
  readonly testClock?: boolean;
}

export interface TestNode {
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly grpcUrl: string;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly adminToken: string;
  readonly logs: readonly Record<string, unknown>[];
  readonly process: ChildProcess;
  /** The store this node runs on. */
  readonly store: NodeStore;
  /** Moves the node's clock forward by `ms` (nodes started with `testClock: true`); expiries without sleeping. */
  advanceClock(ms: number): void;
  /** Puts the test clock back on the system time (offset 0). */
  resetClock(): void;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
  /** Removes the data directory and drops the test schema of a PostgreSQL node (after stop). */
  cleanup(): void;
}

export async function startTestNode(options: NodeOptions = {}): Promise<TestNode> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tessera-e2e-'));
  const store = storeFor(dataDir, options.env ?? {});
  const clockFile = join(dataDir, CLOCK_FILE);
  const child = spawn(process.execPath, [MAIN, ...(options.args ?? ['start'])], {
    env: {
      PATH: process.env.PATH ?? '',
      TESSERA_DATA_DIR: dataDir,
      ...(store.kind === 'postgres' ? { TESSERA_DATABASE_URL: store.url, TESSERA_DATABASE_SCHEMA: store.schema } : {}),
      ...(options.testClock === true ? { TESSERA_TEST_MODE: '1', TESSERA_TEST_CLOCK_FILE: clockFile } : {}),
      TESSERA_PORT: '0',
      TESSERA_GRPC_PORT: '0',
      TESSERA_HOST: '127.0.0.1',
      TESSERA_LOG_LEVEL: 'info',
      // The tests' targets and identity providers listen on 127.0.0.1; target-network.test.ts
      // and test/http/outbound-policy.test.ts check the default (off).
      TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      // One thread unless a suite asks for workers (TESSERA_WORKERS in `env`): the node's default, the
      // usable cores, would start every suite's nodes with a main thread and a worker per core, slower
      // to start and heavier on a shared 2-core machine. The suites that run several workers on purpose
      // are listed in docs/architecture.md ("Workers", what the tests cover). TESSERA_TEST_WORKERS=N
      // runs every node of a suite with N workers instead.
      TESSERA_WORKERS: process.env.TESSERA_TEST_WORKERS ?? '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  // 'close', not 'exit': the child's stdout may still hold its last lines when 'exit' fires, and
  // tests read `logs` right after stop() (e.g. the lines a worker logs as it fails, then 'stopped').
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const entry = parseLine(line);
      logs.push(entry);
      if (entry.msg === 'listening') resolve(entry);
    });
    void exited.then((code) => reject(new Error(`node exited with ${code} before listening:\n${stderr}`)));
  });
  const httpPort = Number(listening.httpPort);
  const grpcPort = Number(listening.grpcPort);
  return {
    dataDir,
    baseUrl: `http://localhost:${httpPort}`,
    grpcUrl: `http://localhost:${grpcPort}`,
    httpPort,
    grpcPort,
    adminToken: readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim(),
    logs,
    process: child,
    store,
    advanceClock(ms) {
      if (options.testClock !== true) throw new Error('advanceClock needs a node started with testClock: true');
      writeClockOffset(clockFile, (existsSync(clockFile) ? Number(readFileSync(clockFile, 'utf8')) : 0) + ms);
    },
    resetClock() {
      if (options.testClock === true) writeClockOffset(clockFile, 0);
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      if (store.kind === 'postgres' && options.env?.TESSERA_DATABASE_URL === undefined) dropTestSchema(store);
    },
  };
}

/** The environment that points a CLI command (`tessera keys`, `migrate`) at the node's store. */
export function storeEnv(node: TestNode): Record<string, string> {
  return node.store.kind === 'postgres' ? { TESSERA_DATABASE_URL: node.store.url, TESSERA_DATABASE_SCHEMA: node.store.schema } : {};
}

/** Replaces the offset at once (write aside, rename), so the node never reads a half-written file. */
function writeClockOffset(file: string, offset: number): void {
  writeFileSync(`${file}.next`, String(offset));
  renameSync(`${file}.next`, file);
}

/** The store a node on `dataDir` gets: the suite's own database, the test schema of the directory (TESSERA_TEST_STORE=postgres), or LMDB. */
function storeFor(dataDir: string, env: Readonly<Record<string, string>>): NodeStore {
  if (env.TESSERA_DATABASE_URL !== undefined) return { kind: 'postgres', url: env.TESSERA_DATABASE_URL, schema: env.TESSERA_DATABASE_SCHEMA ?? 'public' };
  if (TEST_STORE === 'lmdb') return { kind: 'lmdb', path: join(dataDir, 'lmdb') };
  const url = process.env.TESSERA_TEST_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('TESSERA_TEST_STORE=postgres needs TESSERA_TEST_DATABASE_URL');
  const file = join(dataDir, SCHEMA_FILE);
  if (existsSync(file)) return { kind: 'postgres', url, schema: readFileSync(file, 'utf8').trim() };
  const schema = `tessera_e2e_${randomBytes(6).toString('hex')}`;
  writeFileSync(file, schema);
  return { kind: 'postgres', url, schema };
}

/** Drops a node's test schema; synchronous (a short child process) so cleanup() stays a plain call in afterAll. */
function dropTestSchema(store: { readonly url: string; readonly schema: string }): void {
  const script = `import postgres from 'postgres';
const sql = postgres(process.env.URL, { max: 1, onnotice: () => undefined });
await sql.unsafe('DROP SCHEMA IF EXISTS "' + process.env.SCHEMA + '" CASCADE');
await sql.end({ timeout: 5 });`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '..', '..'), env: { PATH: process.env.PATH ?? '', URL: store.url, SCHEMA: store.schema }, stdio: 'inherit', timeout: 30_000 });
}

function parseLine(line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { raw: line };
  }
}

/** Runs the CLI to completion (init, bad config) and returns exit code and output. */
export async function runCli(args: readonly string[], env: Readonly<Record<string, string>>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // 'close': the output is complete only once the pipes are (after 'exit', possibly).
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

/**
 * A JSON call against a node with the admin token (node:http, so tests can set Host). `agent`:
 * the connection pool to use (e.g. one keep-alive socket, to stay on one worker thread).
 */
export function api(node: TestNode, token = node.adminToken, options: { readonly agent?: Agent } = {}) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Record<string, any> }>((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const request = httpRequest(
        {
          ...(options.agent === undefined ? {} : { agent: options.agent }),
          host: '127.0.0.1',
          port: node.httpPort,
          method,
          path,
          headers: {
            host: `localhost:${node.httpPort}`,
            ...(token === '' ? {} : { authorization: `Bearer ${token}` }),
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
            ...headers,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let json: unknown;
            try {
              json = text === '' ? undefined : JSON.parse(text);
            } catch {
              json = text;
            }
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: json as Record<string, any> });
          });
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
}

/** The fields of the google.rpc.BadRequest detail of an error body (empty when it has none). */
export function violatedFields(body: Record<string, any> | undefined): string[] {
  const details: any[] = Array.isArray(body?.details) ? body.details : [];
  return details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')?.fieldViolations?.map((v: any) => v.field) ?? [];
}

/**
 * Polls `probe` every 50 ms until it answers something other than undefined, and answers that;
 * throws naming `what` after `timeoutMs`. For effects that travel outside the request (a mail,
 * a log line through the node's stdout pipe, a counter another node updates).
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
