/**
 * GET /metrics (Prometheus text format), optionally guarded by a bearer token
 * (TESSERA_METRICS_TOKEN): without the right `Authorization: Bearer <token>` it answers 401 with
 * a `WWW-Authenticate` challenge (RFC 6750 §3). The token is compared as SHA-256 digests in
 * constant time, so neither its content nor its length leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { Route } from './router.js';
import type { HttpReply, HttpRequest } from './types.js';

export const METRICS_PATH = '/metrics';

const unauthorized: HttpReply = Object.freeze({
  status: 401,
  headers: Object.freeze({ 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': 'Bearer realm="metrics"' }),
  body: '{"code":16,"message":"a bearer token is required for the metrics"}',
});

/** `collect`: the text to serve (a node with workers aggregates them all); default: the registry's own metrics. */
export function metricsRoute(registry: Registry, token?: string, collect?: () => Promise<string>): Route {
  const expected = token === undefined ? undefined : digest(token);
  return {
    method: 'GET',
    pattern: METRICS_PATH,
    handler: async (req) => {
      if (expected !== undefined && !hasToken(req, expected)) return unauthorized;
      return { status: 200, headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' }, body: await (collect === undefined ? registry.metrics() : collect()) };
    },
  };
}

function hasToken(req: HttpRequest, expected: Buffer): boolean {
  const authorization = req.headers.authorization;
  if (authorization === undefined || !/^bearer /i.test(authorization)) return false;
  return timingSafeEqual(digest(authorization.slice(7).trim()), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
