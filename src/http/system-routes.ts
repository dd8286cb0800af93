/**
 * Node endpoints on every host: liveness, readiness (started, and every dependency check up:
 * 503 with the failing checks named otherwise; the body names the HTTP adapter serving, so a
 * fallback from uWebSockets.js to node:http is visible), Prometheus metrics unless they have
 * their own port (metrics-route.ts).
 */
import type { ReadinessReport } from './readiness.js';
import type { Route } from './router.js';
import type { HttpReply } from './types.js';

export interface SystemRouteDeps {
  /** The /metrics route; absent when the metrics are served on their own port. */
  readonly metrics?: Route | undefined;
  /** False while starting and once draining. */
  readonly isReady: () => boolean;
  /** The dependency checks (readiness.ts); none when absent. */
  readonly readiness?: () => Promise<ReadinessReport>;
  /** The HTTP adapter serving and the one configured (they differ after a fallback). */
  readonly http: { readonly adapter: 'uws' | 'node'; readonly requested: 'uws' | 'node' };
}

const jsonHeaders = { 'content-type': 'application/json', 'cache-control': 'no-store' };

export function systemRoutes(deps: SystemRouteDeps): Route[] {
  const http = JSON.stringify(deps.http);
  const notReady = `{"status":"not ready","http":${http}}`;
  const ready = `{"status":"ready","http":${http}}`;
  return [
    { method: 'GET', pattern: '/healthz', handler: () => ({ status: 200, headers: jsonHeaders, body: '{"status":"ok"}' }) },
    { method: 'GET', pattern: '/readyz', handler: () => readyReply(deps, ready, notReady) },
    ...(deps.metrics === undefined ? [] : [deps.metrics]),
  ];
}

async function readyReply(deps: SystemRouteDeps, ready: string, notReady: string): Promise<HttpReply> {
  if (!deps.isReady()) return { status: 503, headers: jsonHeaders, body: notReady };
  if (deps.readiness === undefined) return { status: 200, headers: jsonHeaders, body: ready };
  const report = await deps.readiness();
  const body = JSON.stringify({ status: report.ready ? 'ready' : 'not ready', checks: report.checks, http: deps.http });
  return { status: report.ready ? 200 : 503, headers: report.ready ? jsonHeaders : { ...jsonHeaders, 'retry-after': '1' }, body };
}
