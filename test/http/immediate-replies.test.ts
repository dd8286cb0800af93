/**
 * Replies from memory answered before fair admission (router.ts `immediateRoutes`, the
 * lifecycle's `answerNow`), on both adapters. The fair scheduler here expires every request it
 * queues (a clock that moves on each read, maxWaitMs 0): a 503 shows a request went through
 * admission, so each immediate reply has a control beside it that the scheduler refuses.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairScheduler } from '../../src/http/fair-scheduler.js';
import { nodeAdapter } from '../../src/http/node-adapter.js';
import { createRouter, immediateRoutes, type Route } from '../../src/http/router.js';
import type { HttpAdapter, HttpReply, HttpRequest, HttpServerOptions, ListeningServer, WholeReply } from '../../src/http/types.js';
import { UWS_SKIP_REASON, uwsAdapter } from './uws.fixture.js';

const ETAG = '"v1"';
const OK: WholeReply = { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300', etag: ETAG }, body: Buffer.from('{"keys":[]}') };
const NOT_MODIFIED: WholeReply = { status: 304, headers: { 'cache-control': 'max-age=300', etag: ETAG } };

const SPLIT: WholeReply = { status: 200, headers: { 'content-type': 'application/json', 'x-note': 'a\r\nset-cookie: evil=1' }, body: '{}' };

/** The route's reply: 304 when If-None-Match names the ETag; `x-cold` stands for "not held yet". */
function staticReply(req: HttpRequest): WholeReply {
  return req.headers['if-none-match'] === ETAG ? NOT_MODIFIED : OK;
}

function routes(calls: { handler: number }): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/api/static',
      handler: (req) => {
        calls.handler += 1;
        return staticReply(req);
      },
      immediate: (req) => (req.headers['x-cold'] === undefined ? staticReply(req) : undefined),
    },
    {
      method: 'GET',
      pattern: '/api/broken',
      handler: () => OK,
      immediate: () => {
        throw new Error('immediate failed');
      },
    },
    { method: 'GET', pattern: '/api/plain', handler: () => OK },
    // A header that would split the response: refused however the reply is written.
    { method: 'GET', pattern: '/api/split', handler: () => SPLIT, immediate: () => SPLIT },
  ];
}

const CORS = { corsPathPrefixes: ['/api/'] };

const options: HttpServerOptions = { host: '127.0.0.1', port: 0, maxBodyBytes: 1024, bodyTimeoutMs: 1000, maxHeaderCount: 30, maxHeaderBytes: 8192 };

/** Expires whatever waits for a turn: the clock moves on every read and nothing may wait at all. */
function expiringScheduler(): FairScheduler {
  let t = 0;
  return new FairScheduler({ maxInFlight: 64, queueCapacity: 100, turnBudget: 16, maxWaitMs: 0, lagMs: 0, laneOf: () => 'lane', now: () => ++t });
}

/** Sends raw bytes and resolves with what came back once `done` holds (or the socket closed). */
function raw(port: number, request: string, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => {
      text += data;
      if (!done(text)) return;
      socket.destroy();
      resolve(text);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(request);
  });
}

const adapters: { name: string; adapter: HttpAdapter; skip: string | undefined }[] = [
  { name: 'uws', adapter: uwsAdapter ?? nodeAdapter, skip: UWS_SKIP_REASON },
  { name: 'node', adapter: nodeAdapter, skip: undefined },
];

for (const { name, adapter, skip } of adapters) describe.skipIf(skip !== undefined)(`immediate replies on the ${name} adapter`, () => {
  const calls = { handler: 0 };
  const responses: { status: number; route: string | undefined; requestId: string | undefined }[] = [];
  const errors: unknown[] = [];
  let fast: ListeningServer;
  let plain: ListeningServer;
  let fastBase: string;
  let plainBase: string;

  beforeAll(async () => {
    const observer = {
      onResponse: (req: { route?: string; requestId?: string } | undefined, status: number) => responses.push({ status, route: req?.route, requestId: req?.requestId }),
      onError: (error: unknown) => errors.push(error),
    };
    const table = routes(calls);
    const immediate = immediateRoutes(table, CORS);
    fast = await adapter.listen(createRouter(table, CORS), { ...options, fair: expiringScheduler(), ...(immediate === undefined ? {} : { immediate }) }, observer);
    // The same routes without immediate replies and without the scheduler: what the handler's path answers.
    plain = await adapter.listen(createRouter(table, CORS), options);
    fastBase = `http://127.0.0.1:${fast.port}`;
    plainBase = `http://127.0.0.1:${plain.port}`;
  });
  afterAll(async () => {
    await Promise.all([fast.close(0), plain.close(0)]);
  });

  it('answers from memory without admission, the same reply as the handler, with a request id', async () => {
    const before = calls.handler;
    const [immediate, handled] = await Promise.all([fetch(`${fastBase}/api/static`), fetch(`${plainBase}/api/static`)]);
    expect(immediate.status).toBe(200);
    expect(calls.handler).toBe(before + 1); // the plain server's only
    const headersOf = (res: Response) => [...res.headers].filter(([header]) => header !== 'x-request-id' && header !== 'date');
    expect(headersOf(immediate)).toEqual(headersOf(handled));
    expect(headersOf(immediate)).toContainEqual(['access-control-allow-origin', '*']);
    expect(await immediate.text()).toBe(await handled.text());
    expect(immediate.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(responses.at(-1)).toEqual({ status: 200, route: '/api/static', requestId: immediate.headers.get('x-request-id') });
  });

  it('a request the route cannot answer from memory goes through admission (here: expired, 503)', async () => {
    const before = calls.handler;
    const cold = await fetch(`${fastBase}/api/static`, { headers: { 'x-cold': '1' } });
    expect(cold.status).toBe(503);
    expect(cold.headers.get('retry-after')).toBe('1');
    expect(calls.handler).toBe(before);
    expect((await fetch(`${fastBase}/api/plain`)).status).toBe(503); // a route without an immediate reply
  });

  it('keeps the client request id, the Origin echo and 304 on If-None-Match', async () => {
    const res = await fetch(`${fastBase}/api/static`, { headers: { 'x-request-id': 'client-id-1', origin: 'https://rp.example', 'if-none-match': ETAG } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    expect(res.headers.get('x-request-id')).toBe('client-id-1');
    expect(res.headers.get('etag')).toBe(ETAG);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://rp.example');
    expect(res.headers.get('vary')).toBe('origin');
    const other = await fetch(`${fastBase}/api/static`, { headers: { 'if-none-match': '"v0"' } });
    expect(other.status).toBe(200);
    expect(await other.text()).toBe('{"keys":[]}');
  });

  it('serves HEAD: the length of the body, no body', async () => {
    // Same connection: had HEAD sent a body, it would stand before the second status line.
    const text = await raw(fast.port, 'HEAD /api/static HTTP/1.1\r\nHost: t\r\n\r\nGET /api/static HTTP/1.1\r\nHost: t\r\n\r\n', (t) => t.endsWith('{"keys":[]}'));
    const head = text.slice(0, text.indexOf('\r\n\r\n') + 4);
    expect(head.startsWith('HTTP/1.1 200')).toBe(true);
    expect(head.toLowerCase()).toContain(`content-length: ${String(OK.body?.length)}\r\n`);
    expect(text.slice(head.length).startsWith('HTTP/1.1 200')).toBe(true);
  });

  it('a request with a body, or another method, is not answered from memory', async () => {
    const withBody = await raw(fast.port, 'GET /api/static HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}', (t) => t.endsWith('}'));
    expect(withBody.startsWith('HTTP/1.1 503')).toBe(true);
    const post = await fetch(`${fastBase}/api/static`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(503);
  });

  it('answers 431 before anything else, as on the handler path', async () => {
    const headers = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x-h${i}`, 'v']));
    expect((await fetch(`${fastBase}/api/static`, { headers })).status).toBe(431);
    expect((await fetch(`${fastBase}/api/static`, { headers: { 'x-h0': 'v' } })).status).toBe(200);
  });

  it('refuses a reply header that would split the response, on every request (the reply is shared)', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${fastBase}/api/split`);
      expect(res.status).toBe(500);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('x-note')).toBeNull();
    }
    // Control: a shared reply's fields arrive each whole and separate.
    const whole = await fetch(`${fastBase}/api/static`);
    expect(whole.status).toBe(200);
    expect([whole.headers.get('etag'), whole.headers.get('cache-control'), whole.headers.get('vary')]).toEqual([ETAG, 'max-age=300', 'origin']);
  });

  it('a throwing immediate handler answers 500 and is reported', async () => {
    const before = errors.length;
    const res = await fetch(`${fastBase}/api/broken`);
    expect(res.status).toBe(500);
    expect(errors.length).toBe(before + 1);
    expect(String(errors.at(-1))).toContain('immediate failed');
  });
});

describe('immediateRoutes', () => {
  const reply = (status: number): HttpReply => ({ status, headers: { 'content-type': 'application/json' }, body: '{}' });
  const req = (method: string, path: string, headers: Record<string, string> = {}) => ({ method, path, headers }) as unknown as HttpRequest;

  it('is undefined when no route has an immediate reply', () => {
    expect(immediateRoutes([{ method: 'GET', pattern: '/a', handler: () => reply(200) }], CORS)).toBeUndefined();
  });

  it('refuses an immediate reply on a route with parameters or another method', () => {
    expect(() => immediateRoutes([{ method: 'GET', pattern: '/a/{id}', handler: () => reply(200), immediate: () => OK }], CORS)).toThrow(/without parameters/);
    expect(() => immediateRoutes([{ method: 'POST', pattern: '/a', handler: () => reply(200), immediate: () => OK }], CORS)).toThrow(/GET route/);
  });

  it('answers GET and HEAD of its exact path only, decorated as the router decorates', () => {
    const table: Route[] = [{ method: 'GET', pattern: '/api/x', handler: () => OK, immediate: () => OK }];
    const immediate = immediateRoutes(table, CORS)!;
    const router = createRouter(table, CORS);
    for (const method of ['GET', 'HEAD']) {
      const request = req(method, '/api/x');
      expect(immediate(request)).toEqual(router(req(method, '/api/x')));
      expect(request.route).toBe('/api/x');
    }
    const withOrigin = immediate(req('GET', '/api/x', { origin: 'https://rp.example' }));
    expect(withOrigin).toEqual(router(req('GET', '/api/x', { origin: 'https://rp.example' })));
    expect(withOrigin?.headers?.['access-control-allow-origin']).toBe('https://rp.example');
    expect(immediate(req('POST', '/api/x'))).toBeUndefined();
    expect(immediate(req('GET', '/api/x/'))).toBeUndefined();
    expect(immediate(req('GET', '/api/y'))).toBeUndefined();
  });
});
