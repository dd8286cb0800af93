import { describe, expect, it } from 'vitest';
import { createRouter, type Route, type RouterOptions } from '../../src/http/router.js';
import { html, json } from '../../src/http/reply.js';
import type { HttpHandler, HttpReply, HttpRequest } from '../../src/http/types.js';

function request(method: string, path: string, headers: Record<string, string> = {}): HttpRequest {
  return {
    method,
    path,
    query: '',
    headers,
    body: Buffer.alloc(0),
    remoteAddress: '127.0.0.1',
    scheme: 'http',
    signal: new AbortController().signal,
    params: {},
    startedAt: 0,
    requestId: 'test-request',
  };
}

/** Each route answers with its own pattern and the params it received. */
function echoRoute(method: string, pattern: string): Route {
  return { method, pattern, handler: (req) => json(200, { pattern: req.route, params: req.params, method: req.method }) };
}

async function call(handler: HttpHandler, req: HttpRequest): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  const reply: HttpReply = await handler(req);
  const body = typeof reply.body === 'string' ? JSON.parse(reply.body) : reply.body;
  return { status: reply.status, headers: { ...reply.headers }, body };
}

const routes: Route[] = [
  echoRoute('GET', '/organizations/{id}'),
  echoRoute('GET', '/organizations/_instance_default'),
  echoRoute('DELETE', '/organizations/{id}'),
  echoRoute('GET', '/organizations/{orgId}/members/{userId}'),
  echoRoute('POST', '/organizations/{id}/_deactivate'),
  echoRoute('GET', '/organizations/_instance_default/settings'),
  echoRoute('GET', '/'),
  echoRoute('GET', '/v2/things/{id}'),
];
const options: RouterOptions = { corsPathPrefixes: ['/v2/'] };
const router = createRouter(routes, options);

describe('router matching', () => {
  it.each([
    ['GET', '/organizations/o1', '/organizations/{id}', { id: 'o1' }],
    ['GET', '/organizations/_instance_default', '/organizations/_instance_default', {}],
    ['DELETE', '/organizations/_instance_default', '/organizations/{id}', { id: '_instance_default' }],
    ['GET', '/organizations/o1/members/u%2F1', '/organizations/{orgId}/members/{userId}', { orgId: 'o1', userId: 'u/1' }],
    // The literal branch dead-ends below, so the param branch is tried.
    ['GET', '/organizations/_instance_default/members/u1', '/organizations/{orgId}/members/{userId}', { orgId: '_instance_default', userId: 'u1' }],
    ['POST', '/organizations/o%20x/_deactivate', '/organizations/{id}/_deactivate', { id: 'o x' }],
    ['GET', '/', '/', {}],
  ])('%s %s → %s', async (method, path, pattern, params) => {
    expect(await call(router, request(method, path))).toMatchObject({ status: 200, body: { pattern, params } });
  });

  it.each([['/organizations'], ['/organizations/'], ['/organizations/o1/'], ['/organizations//members/u1'], ['/nope'], ['*']])(
    'GET %s → 404',
    async (path) => {
      expect(await call(router, request('GET', path))).toMatchObject({ status: 404, body: { code: 5, message: 'Not Found' } });
    },
  );

  it('answers 400 for a param that is not valid percent-encoding', async () => {
    expect(await call(router, request('GET', '/organizations/%E0%A4%A'))).toMatchObject({ status: 400, body: { code: 3 } });
  });

  it('serves HEAD with the GET route, keeping the HEAD method', async () => {
    expect(await call(router, request('HEAD', '/organizations/o1'))).toMatchObject({
      status: 200,
      body: { pattern: '/organizations/{id}', method: 'HEAD' },
    });
  });

  it('answers 405 with every allowed method', async () => {
    const result = await call(router, request('PUT', '/organizations/o1'));
    expect(result.status).toBe(405);
    expect(result.headers['allow']).toBe('GET, DELETE, HEAD');
    expect(result.body).toEqual({ code: 12, message: 'Method Not Allowed' });
  });

  it('lists OPTIONS in Allow on CORS paths', async () => {
    const result = await call(router, request('POST', '/v2/things/1'));
    expect(result.headers['allow']).toBe('GET, HEAD, OPTIONS');
  });

  it('rejects a param that is not a whole segment, and duplicates', () => {
    expect(() => createRouter([echoRoute('GET', '/a/{id}:verify')], options)).toThrow(/whole segment/);
    expect(() => createRouter([echoRoute('GET', '/a/{x}'), echoRoute('GET', '/a/{y}')], options)).toThrow(/duplicate/);
  });
});

describe('router fallback and not found', () => {
  const fallbackRouter = createRouter([echoRoute('GET', '/known')], {
    corsPathPrefixes: [],
    fallback: async (req) => (req.path.startsWith('/svc.v1.Service/') ? json(200, { rpc: req.path }) : undefined),
    notFound: () => json(404, { custom: true }),
  });

  it('consults the fallback when no pattern matches', async () => {
    expect(await call(fallbackRouter, request('POST', '/svc.v1.Service/Call'))).toMatchObject({ status: 200, body: { rpc: '/svc.v1.Service/Call' } });
  });

  it('uses notFound when the fallback declines', async () => {
    expect(await call(fallbackRouter, request('GET', '/other'))).toMatchObject({ status: 404, body: { custom: true } });
  });

  it('answers 405 rather than asking the fallback for a known path', async () => {
    expect(await call(fallbackRouter, request('POST', '/known'))).toMatchObject({ status: 405 });
  });
});

describe('router headers', () => {
  it('answers a preflight on CORS paths, even where no route matches', async () => {
    const result = await call(
      router,
      request('OPTIONS', '/v2/unknown', { origin: 'https://a.example', 'access-control-request-headers': 'x-foo' }),
    );
    expect(result).toMatchObject({
      status: 204,
      headers: {
        'access-control-allow-origin': 'https://a.example',
        'access-control-max-age': '86400',
      },
    });
    const allowHeaders = String(result.headers['access-control-allow-headers']).split(', ');
    expect(allowHeaders).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'connect-protocol-version', 'connect-timeout-ms', 'x-grpc-web', 'x-user-agent', 'grpc-timeout', 'x-foo']),
    );
  });

  it('uses * without an Origin and adds CORS headers to replies on CORS paths only', async () => {
    const cors = await call(router, request('GET', '/v2/things/1'));
    expect(cors.headers).toMatchObject({ 'access-control-allow-origin': '*', vary: 'origin', 'x-content-type-options': 'nosniff' });
    expect(String(cors.headers['access-control-expose-headers']).split(', ')).toEqual(
      expect.arrayContaining(['grpc-status', 'grpc-message', 'grpc-status-details-bin', 'www-authenticate', 'location']),
    );
    const plain = await call(router, request('GET', '/organizations/o1', { origin: 'https://a.example' }));
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('adds the security headers to HTML, keeping a CSP the handler set', async () => {
    const pages = createRouter(
      [
        { method: 'GET', pattern: '/page', handler: () => html(200, '<p>') },
        { method: 'GET', pattern: '/nonce', handler: () => html(200, '<p>', { 'content-security-policy': "script-src 'nonce-x'" }) },
      ],
      { corsPathPrefixes: [] },
    );
    const page = await pages(request('GET', '/page'));
    expect(page.headers).toMatchObject({
      'content-security-policy':
        "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'; style-src 'self' 'unsafe-inline'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
    });
    const nonce = await pages(request('GET', '/nonce'));
    expect(nonce.headers).toMatchObject({ 'content-security-policy': "script-src 'nonce-x'", 'x-frame-options': 'DENY' });
  });

  it('adds nosniff to replies without headers and returns sync replies synchronously', () => {
    const bare = createRouter([{ method: 'GET', pattern: '/x', handler: () => ({ status: 204 }) }], { corsPathPrefixes: [] });
    const reply = bare(request('GET', '/x'));
    expect(reply).toEqual({ status: 204, headers: { 'x-content-type-options': 'nosniff' }, body: undefined });
  });
});

describe('deferred route families', () => {
  /** A family under /api/ whose load is counted and can be made to fail. */
  function family(routes: Route[]) {
    const state = { loads: 0, fail: false };
    const deferred = {
      prefixes: ['/api/'],
      load: async () => {
        state.loads++;
        if (state.fail) throw new Error('load failed');
        return routes;
      },
    };
    return { state, deferred };
  }
  const apiRoutes = [echoRoute('GET', '/api/items/{id}'), echoRoute('POST', '/api/items')];
  const fallback = async (req: HttpRequest) => (req.path.startsWith('/api/rpc/') ? json(200, { rpc: req.path }) : undefined);

  it('does not load for requests outside its prefixes, and loads once for concurrent requests under them', async () => {
    const { state, deferred } = family(apiRoutes);
    const router = createRouter([echoRoute('GET', '/known')], { corsPathPrefixes: [], deferred: [deferred] });
    expect(await call(router, request('GET', '/known'))).toMatchObject({ status: 200 });
    expect(await call(router, request('GET', '/other'))).toMatchObject({ status: 404 });
    expect(state.loads).toBe(0);
    const [first, second] = await Promise.all([call(router, request('GET', '/api/items/7')), call(router, request('GET', '/api/items/8'))]);
    expect(first).toMatchObject({ status: 200, body: { pattern: '/api/items/{id}', params: { id: '7' } } });
    expect(second).toMatchObject({ status: 200, body: { params: { id: '8' } } });
    expect(await call(router, request('POST', '/api/items'))).toMatchObject({ status: 200, body: { pattern: '/api/items' } });
    expect(state.loads).toBe(1);
  });

  it('answers as if the routes had been there from the start: 405, fallback, not found (control: the same router built eagerly)', async () => {
    const eager = createRouter([...apiRoutes], { corsPathPrefixes: [], fallback });
    for (const probe of [request('DELETE', '/api/items/7'), request('POST', '/api/rpc/Call'), request('GET', '/api/nothing')]) {
      const deferred = createRouter([], { corsPathPrefixes: [], fallback, deferred: [family(apiRoutes).deferred] });
      expect(await call(deferred, probe)).toEqual(await call(eager, probe));
    }
    expect(await call(eager, request('DELETE', '/api/items/7'))).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });

  it('tries a failed load again on the next request', async () => {
    const { state, deferred } = family(apiRoutes);
    const router = createRouter([], { corsPathPrefixes: [], deferred: [deferred] });
    state.fail = true;
    await expect(call(router, request('GET', '/api/items/1'))).rejects.toThrow('load failed');
    state.fail = false;
    expect(await call(router, request('GET', '/api/items/1'))).toMatchObject({ status: 200 });
    expect(state.loads).toBe(2);
  });

  it('refuses a route given at creation under its prefixes, and a loaded route outside them', async () => {
    expect(() => createRouter([echoRoute('GET', '/api/eager')], { corsPathPrefixes: [], deferred: [family(apiRoutes).deferred] })).toThrow(/deferred/);
    const router = createRouter([], { corsPathPrefixes: [], deferred: [family([echoRoute('GET', '/elsewhere')]).deferred] });
    await expect(call(router, request('GET', '/api/items/1'))).rejects.toThrow(/outside/);
  });
});
