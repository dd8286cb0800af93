/**
 * The bench's wrk runner sends the request of the scenario: headers on the command line, another
 * method and a body through the Lua script it writes (bench/measure.ts). Needs wrk on PATH
 * (scripts/install-bench-deps.sh); skipped without it. No timing is asserted.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luaString, measureWrk, type LoadSpec } from '../../bench/measure.js';
import { clockTicksPerSecond, findExecutable } from '../../bench/processes.js';

const WRK = findExecutable('wrk');

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

describe('luaString', () => {
  it('keeps printable ASCII and escapes quotes, backslashes, control and non-ASCII bytes in three digits', () => {
    expect(luaString('grant_type=client_credentials&scope=openid%20profile')).toBe('"grant_type=client_credentials&scope=openid%20profile"');
    expect(luaString('a"b\\c\n1é')).toBe('"a\\034b\\092c\\0101\\195\\169"');
  });
});

describe.skipIf(WRK === undefined)(`measureWrk${WRK === undefined ? ' (skipped: wrk not installed)' : ''}`, () => {
  let server: Server;
  let origin: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (seen.length < 5) seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const spec = (overrides: Partial<LoadSpec>): LoadSpec => ({
    origin,
    method: 'GET',
    path: '/t',
    headers: { host: 'localhost' },
    connections: 2,
    pipelining: 1,
    durationS: 1,
    ...overrides,
  });
  const target = () => ({ pid: process.pid, ticksPerSecond: clockTicksPerSecond(), serverCpu: undefined, clientCpu: undefined });

  it('sends a POST with the scenario body and headers (Lua script), and measures its own CPU', async () => {
    seen.length = 0;
    const body = 'grant_type=client_credentials&scope=openid profile&x="\\q"\n9é';
    const run = await measureWrk(
      spec({ method: 'POST', path: '/oauth/v2/token', body, headers: { host: 'localhost', authorization: 'Basic YTpi', 'content-type': 'application/x-www-form-urlencoded' } }),
      target(),
      { wrk: WRK!, cpu: undefined },
    );
    expect(run.tool).toBe('wrk');
    expect(run.responses).toBeGreaterThan(0);
    expect(run.non2xx).toBe(0);
    expect(run.clientCpuShare).toBeGreaterThanOrEqual(0);
    const first = seen[0]!;
    expect(first.method).toBe('POST');
    expect(first.url).toBe('/oauth/v2/token');
    expect(first.body).toBe(body);
    expect(first.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(first.headers.authorization).toBe('Basic YTpi');
    expect(first.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(first.headers.host).toBe('localhost');
  });

  it('sends a GET with headers and no body without a script (the control)', async () => {
    seen.length = 0;
    await measureWrk(spec({ headers: { host: 'localhost', authorization: 'Bearer t' } }), target(), { wrk: WRK!, cpu: undefined });
    const first = seen[0]!;
    expect(first.method).toBe('GET');
    expect(first.body).toBe('');
    expect(first.headers['content-length']).toBeUndefined();
    expect(first.headers.authorization).toBe('Bearer t');
  });

  it('refuses a body made per request (wrk repeats one request)', async () => {
    await expect(measureWrk(spec({ method: 'POST', body: () => '{}' }), target(), { wrk: WRK!, cpu: undefined })).rejects.toThrow('autocannon');
  });
});
