/** Node endpoints on every host: liveness, readiness, Prometheus metrics. */
import type { Registry } from 'prom-client';
import type { Route } from './router.js';

export function systemRoutes(deps: { metrics: Registry; isReady: () => boolean }): Route[] {
  const jsonHeaders = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  return [
    { method: 'GET', pattern: '/healthz', handler: () => ({ status: 200, headers: jsonHeaders, body: '{"status":"ok"}' }) },
    {
      method: 'GET',
      pattern: '/readyz',
      handler: () =>
        deps.isReady()
          ? { status: 200, headers: jsonHeaders, body: '{"status":"ready"}' }
          : { status: 503, headers: jsonHeaders, body: '{"status":"not ready"}' },
    },
    {
      method: 'GET',
      pattern: '/metrics',
      handler: async () => ({
        status: 200,
        headers: { 'content-type': deps.metrics.contentType, 'cache-control': 'no-store' },
        body: await deps.metrics.metrics(),
      }),
    },
  ];
}
