/**
 * A small router app for the adapter suite: each route provokes one adapter behaviour, and the
 * probes let tests observe what a handler saw (abort signal, in-flight gate).
 */
import { createRouter } from '../../src/http/router.js';
import { empty, html, json, jsonHeadersWith } from '../../src/http/reply.js';
import type { HttpHandler, HttpObserver, HttpRequest, HttpServerOptions } from '../../src/http/types.js';

/** `/echo-large` has its own, larger body limit (as the organization import has). */
export const LARGE_BODY_BYTES = 4096;
/** Below the uWS build's 48 header fields, so both adapters answer 431. */
export const MAX_HEADER_COUNT = 30;
/**
 * Below the 4 KB the pinned uWebSockets.js build keeps of a head that arrives in several reads
 * (docs/security.md, "Input limits"): a head just above the limit is answered 431 on both
 * adapters however the kernel splits it.
 */
export const MAX_HEADER_BYTES = 3000;
export const serverOptions: HttpServerOptions = {
  host: '127.0.0.1',
  port: 0,
  maxBodyBytes: 1024,
  bodyLimits: { '/echo-large': LARGE_BODY_BYTES },
  bodyTimeoutMs: 300,
  maxHeaderCount: MAX_HEADER_COUNT,
  maxHeaderBytes: MAX_HEADER_BYTES,
};

export const STREAM_CHUNKS = 256;
export const STREAM_CHUNK_BYTES = 16 * 1024;

/** A promise with its resolver, for handlers the test controls. */
export interface Gate<T = void> {
  readonly promise: Promise<T>;
  readonly open: (value: T) => void;
}

export function gate<T = void>(): Gate<T> {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

export interface Probes {
  slowEntered: Gate;
  slowAborted: Gate<boolean>;
  heldEntered: Gate;
  release: Gate;
  readonly responses: { status: number; route: string | undefined }[];
  readonly errors: unknown[];
}

export function createProbes(): Probes {
  return { slowEntered: gate(), slowAborted: gate(), heldEntered: gate(), release: gate(), responses: [], errors: [] };
}

export function createObserver(probes: Probes): HttpObserver {
  return {
    onResponse: (req, status) => probes.responses.push({ status, route: req?.route }),
    onError: (error) => probes.errors.push(error),
  };
}

async function* streamChunks(): AsyncIterable<Uint8Array> {
  for (let i = 0; i < STREAM_CHUNKS; i++) {
    await Promise.resolve();
    yield new Uint8Array(STREAM_CHUNK_BYTES).fill(i % 251);
  }
}

function waitForAbort(req: HttpRequest): Promise<boolean> {
  return new Promise((resolve) => req.signal.addEventListener('abort', () => resolve(req.signal.aborted), { once: true }));
}

/** Headers built once and sent on every reply of `/shared-headers` (as the OAuth replies do). */
const SHARED_NO_STORE = jsonHeadersWith({ 'cache-control': 'no-store', pragma: 'no-cache' });

export function createApp(probes: Probes): HttpHandler {
  return createRouter(
    [
      {
        method: 'GET',
        pattern: '/items/{id}',
        handler: (req) => json(200, { id: req.params['id'], route: req.route, query: req.query, remote: req.remoteAddress }),
      },
      { method: 'GET', pattern: '/shared-headers/{n}', handler: (req) => ({ status: 200, headers: SHARED_NO_STORE, body: JSON.stringify({ n: req.params['n'] }) }) },
      { method: 'GET', pattern: '/split', handler: () => json(200, {}, { 'x-note': 'a\r\nset-cookie: evil=1' }) },
      { method: 'DELETE', pattern: '/items/{id}', handler: () => empty(204) },
      { method: 'GET', pattern: '/items/_special', handler: (req) => json(200, { special: true, route: req.route }) },
      { method: 'POST', pattern: '/echo', handler: async (req) => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, body: req.body }) },
      // The peer address read only after the body arrived and a timer passed (uWS reads it lazily).
      { method: 'POST', pattern: '/remote-later', handler: async (req) => { await new Promise((resolve) => setTimeout(resolve, 5)); return json(200, { remote: req.remoteAddress }); } },
      { method: 'POST', pattern: '/echo-large', handler: (req) => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, body: req.body }) },
      { method: 'POST', pattern: '/constructor', handler: (req) => json(200, { bytes: req.body.length }) },
      { method: 'GET', pattern: '/html', handler: () => html(200, '<!doctype html><title>t</title>') },
      { method: 'GET', pattern: '/stream', handler: () => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, body: streamChunks() }) },
      {
        method: 'GET',
        pattern: '/boom',
        handler: () => {
          throw new Error('secret detail that must not leak');
        },
      },
      {
        method: 'GET',
        pattern: '/slow',
        handler: async (req) => {
          probes.slowEntered.open();
          probes.slowAborted.open(await waitForAbort(req));
          return json(200, { late: true });
        },
      },
      {
        method: 'GET',
        pattern: '/held',
        handler: async () => {
          probes.heldEntered.open();
          await probes.release.promise;
          return json(200, { released: true });
        },
      },
      { method: 'GET', pattern: '/api/things', handler: () => json(200, { things: [] }, { 'grpc-status': '0' }) },
    ],
    { corsPathPrefixes: ['/api/'] },
  );
}
