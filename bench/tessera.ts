/**
 * The Tessera node under test: started from the compiled dist/ as `npm start` runs it, on free
 * ports with a fresh temporary data directory, plus a small HTTP client to seed it. Requests go
 * to 127.0.0.1 with `Host: localhost`, the domain of the first instance.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mallocSettingsFor } from '../src/cli/malloc-settings.js';
import { spawnServer, type Cleanup, type ServerProcess } from './processes.js';

export const TESSERA_HOST_HEADER = 'localhost';
export const ORGANIZATIONS_PATH = '/resources/v3alpha/organizations';

export interface TesseraNode {
  readonly server: ServerProcess;
  readonly dataDir: string;
  readonly origin: string;
  readonly adminToken: string;
  /** "uws" or "node": the HTTP adapter the node picked (uws falls back to node with a warning). */
  readonly httpAdapter: string;
}

export async function startTessera(options: {
  readonly main: string;
  readonly cpu: number | undefined;
  readonly cleanup: Cleanup;
  /** Defaults for the node's environment; TESSERA_* settings of the runner's environment win. */
  readonly defaults?: Readonly<Record<string, string>>;
  /** Start on this data directory (a restart); a fresh temporary one, removed at the end, by default. */
  readonly dataDir?: string;
  /** Every line of the node's stdout, as it comes (the runner keeps only the last few). */
  readonly onLine?: (line: string) => void;
}): Promise<TesseraNode> {
  let dataDir = options.dataDir;
  if (dataDir === undefined) {
    dataDir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
    options.cleanup.addDirectory(dataDir);
  }
  // Other TESSERA_* settings (e.g. TESSERA_HTTP=node) pass through; these are fixed.
  // glibc's malloc settings (MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_, GLIBC_TUNABLES, ...) too, to compare them;
  // without any, the node gets the ones `npm start` and the documented systemd unit give it
  // (src/cli/malloc-settings.ts; `GLIBC_TUNABLES=` measures glibc's own defaults).
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => /^(TESSERA_|MALLOC_|GLIBC_TUNABLES$)/.test(entry[0]) && entry[1] !== undefined));
  const server = await spawnServer({
    name: 'tessera',
    cleanup: options.cleanup,
    // BENCH_NODE_ARGS: extra node options for the Tessera node only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
    args: [...nodeArgs(), options.main, 'start'],
    cpu: options.cpu,
    env: {
      // One client, one caller and one address drive the load: limits high enough never to
      // refuse, so the counting is measured but no request is turned away.
      TESSERA_RATE_LIMIT_CLIENT: '999999999/1s',
      TESSERA_RATE_LIMIT_API_CALLER: '999999999/1s',
      TESSERA_RATE_LIMIT_LOGIN_PAGES_IP: '999999999/1s',
      ...options.defaults,
      ...mallocSettingsFor(process.env),
      ...inherited,
      PATH: process.env.PATH ?? '',
      TESSERA_DATA_DIR: dataDir,
      TESSERA_PORT: '0',
      TESSERA_GRPC_PORT: '0',
      TESSERA_HOST: '127.0.0.1',
      // info, not warn: the `listening` line carries the ports.
      TESSERA_LOG_LEVEL: 'info',
      TESSERA_SHUTDOWN_GRACE_MS: '3000',
    },
    readyTimeoutMs: 60_000,
    onLine: options.onLine,
  });
  const httpPort = Number(server.listening.httpPort);
  if (!Number.isInteger(httpPort) || httpPort <= 0) throw new Error(`tessera's listening line has no httpPort: ${JSON.stringify(server.listening)}`);
  return {
    server,
    dataDir,
    origin: `http://127.0.0.1:${httpPort}`,
    adminToken: readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim(),
    httpAdapter: typeof server.listening.http === 'string' ? server.listening.http : 'unknown',
  };
}

function nodeArgs(): string[] {
  const value = process.env.BENCH_NODE_ARGS?.trim();
  return value === undefined || value === '' ? [] : value.split(/\s+/);
}

export interface HttpResult {
  readonly status: number;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One request over a keep-alive agent; `Host: localhost` unless given; fails after `timeoutMs` without a byte (default 30 s). */
export function httpRequest(origin: string, method: string, path: string, headers: Readonly<Record<string, string>>, body?: string, timeoutMs = 30_000): Promise<HttpResult> {
  const url = new URL(path, origin);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          host: TESSERA_HOST_HEADER,
          ...headers,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.once('error', reject);
      },
    );
    req.once('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.once('error', reject);
    req.end(body);
  });
}

export function closeHttpClient(): void {
  agent.destroy();
}

/** VmRSS, RssAnon and RssFile of a process in KiB, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rssKiB: number; rssAnonKiB: number; rssFileKiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssKiB: field('VmRSS'), rssAnonKiB: field('RssAnon'), rssFileKiB: field('RssFile') };
}

/** Creates `count` organizations (`concurrency` at a time); returns their ids in creation order. */
export async function seedOrganizations(node: TesseraNode, count: number, prefix: string, concurrency = 8): Promise<string[]> {
  const headers = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const name = `${prefix} seed ${String(index).padStart(4, '0')}`;
      const result = await httpRequest(node.origin, 'POST', ORGANIZATIONS_PATH, headers, JSON.stringify({ name }));
      if (result.status !== 201) throw new Error(`seeding organization ${index}: HTTP ${result.status} ${result.body}`);
      ids[index] = readCreatedId(result.body);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, () => worker()));
  return ids;
}

function readCreatedId(body: string): string {
  const parsed: unknown = JSON.parse(body);
  const details = isRecord(parsed) ? parsed.details : undefined;
  const id = isRecord(details) ? details.id : undefined;
  if (typeof id !== 'string' || id === '') throw new Error(`create response has no details.id: ${body}`);
  return id;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
