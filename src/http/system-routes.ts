/**
 * Node endpoints on every host: liveness, readiness (started, and every dependency check up:
 * 503 with the failing checks named otherwise), Prometheus metrics.
 */
import type { Registry } from 'prom-client';
import type { ReadinessReport } from './readiness.js';
import type { Route } from './router.js';
import type { HttpReply } from './types.js';

export interface SystemRouteDeps {
  readonly metrics: Registry;
  /** False while starting and once draining. */
  readonly isReady: () => boolean;
  /** The dependency checks (readiness.ts); none when absent. */
  readonly readiness?: () => Promise<ReadinessReport>;
}

const jsonHeaders = { 'content-type': 'application/json', 'cache-control': 'no-store' };

export function systemRoutes(deps: SystemRouteDeps): Route[] {
  return [
    { method: 'GET', pattern: '/healthz', handler: () => ({ status: 200, headers: jsonHeaders, body: '{"status":"ok"}' }) },
    { method: 'GET', pattern: '/readyz', handler: () => readyReply(deps) },
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

async function readyReply(deps: SystemRouteDeps): Promise<HttpReply> {
  if (!deps.isReady()) return { status: 503, headers: jsonHeaders, body: '{"status":"not ready"}' };
  if (deps.readiness === undefined) return { status: 200, headers: jsonHeaders, body: '{"status":"ready"}' };
  const report = await deps.readiness();
  const body = JSON.stringify({ status: report.ready ? 'ready' : 'not ready', checks: report.checks });
  return { status: report.ready ? 200 : 503, headers: report.ready ? jsonHeaders : { ...jsonHeaders, 'retry-after': '1' }, body };
}
