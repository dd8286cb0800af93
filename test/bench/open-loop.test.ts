import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { measureOpenLoop, type LoadSpec } from '../../bench/measure.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** A server answering each request with `reply(n)`, n counting from 0. */
async function listen(reply: (n: number, res: import('node:http').ServerResponse) => void): Promise<string> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => reply(n++, res));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers every request at once except the first, held for 60 ms (a connection kept busy). */
function holdFirstReply(n: number, res: import('node:http').ServerResponse): void {
  const answer = (): void => {
    res.writeHead(200, { 'content-length': 2 });
    res.end('ok');
  };
  if (n === 0) setTimeout(answer, 60);
  else answer();
}

const spec = (origin: string): LoadSpec => ({ origin, method: 'POST', path: '/token', headers: { host: 'localhost', 'content-type': 'text/plain' }, body: 'x=1', connections: 4, pipelining: 1, durationS: 0.5 });
const target = { pid: process.pid, ticksPerSecond: 100, serverCpu: undefined, clientCpu: undefined };

describe('measureOpenLoop', () => {
  it('sends rate × duration requests and reads responses split over several writes, counting non-2xx as bad', async () => {
    const origin = await listen((n, res) => {
      const body = '{"ok":true,"padding":"' + 'p'.repeat(3000) + '"}';
      res.writeHead(n % 5 === 0 ? 500 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      // Header and body in separate writes, the body in two: the client must join them.
      res.write(body.slice(0, 10));
      setImmediate(() => res.end(body.slice(10)));
    });
    const run = await measureOpenLoop(spec(origin), 200, target, 0);
    expect(run.sent).toBe(100);
    expect(run.responses).toBe(100);
    expect(run.bad).toBe(20);
    expect(run.latency.maxMs).toBeGreaterThan(0);
  });

  it('reports the wait for a busy connection in the send lag, not in the client\'s own lag', async () => {
    // One connection, 10 requests due 5 ms apart (the last at 45 ms). The first reply is held by
    // a 60 ms timer (holdFirstReply): the sender's timers all expire before it and fire first (timers run in
    // expiry order on this one loop), so the other 9 are taken up while the connection is busy.
    const origin = await listen(holdFirstReply);
    const run = await measureOpenLoop({ ...spec(origin), connections: 1, durationS: 0.05 }, 200, target, 0);
    expect(run.responses).toBe(10);
    expect(run.queuedInClient).toBe(9);
    // Each request is written no earlier than taken up, so every percentile of the send lag is
    // at least the client's own lag's; the last one was due at 45 ms and written after the held
    // reply (≥ 60 ms), so its send lag is at least 15 ms whatever the client's own lag was.
    expect(run.sendLag.p50Ms).toBeGreaterThanOrEqual(run.dueLag.p50Ms);
    expect(run.sendLag.maxMs).toBeGreaterThanOrEqual(run.dueLag.maxMs);
    expect(run.sendLag.maxMs).toBeGreaterThanOrEqual(15);
  });

  it('queues nothing in the client with a connection per request, the same reply held (control)', async () => {
    const origin = await listen(holdFirstReply);
    const run = await measureOpenLoop({ ...spec(origin), connections: 10, durationS: 0.05 }, 200, target, 0);
    expect(run.responses).toBe(10);
    expect(run.queuedInClient).toBe(0);
    expect(run.sendLag.maxMs).toBeGreaterThanOrEqual(run.dueLag.maxMs);
  });

  it('counts a response it cannot read (no Content-Length) as bad and still finishes', async () => {
    const origin = await listen((n, res) => {
      if (n % 2 === 0) {
        res.writeHead(200, { 'content-length': 2 });
        res.end('ok');
      } else {
        // A write before end: node:http sends Transfer-Encoding: chunked, no Content-Length.
        res.write('chunked');
        res.end();
      }
    });
    const run = await measureOpenLoop({ ...spec(origin), connections: 1, durationS: 0.05 }, 200, target, 0);
    // 10 requests, one connection: the first is read; the second's chunked reply drops the
    // connection, and the 8 after it fail at once with no connection left (never written).
    expect(run.sent).toBe(2);
    expect(run.responses).toBe(1);
    expect(run.bad).toBe(9);
  });
});
