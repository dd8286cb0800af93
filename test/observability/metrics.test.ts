/**
 * The request metrics count into plain numbers and hand them to prom-client at scrape time; the
 * exposition must be the one prom-client's own Counter and Histogram give for the same requests.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ObservedRequest } from '../../src/http/types.js';
import { createMetrics } from '../../src/observability/metrics.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

function lines(text: string, prefix: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(prefix));
}

describe('request metrics', () => {
  it('expose the same counts, buckets, sums and token counts as prom-client fed request by request', async () => {
    const metrics = createMetrics({ onError: () => undefined, onServerError: () => undefined });
    const reference = new Registry();
    const requests = new Counter({ name: 'tessera_http_requests_total', help: 'x', labelNames: ['route', 'method', 'transport', 'status'], registers: [reference] });
    const latency = new Histogram({ name: 'tessera_http_request_duration_seconds', help: 'x', labelNames: ['route', 'method', 'transport'], buckets: BUCKETS, registers: [reference] });
    const tokens = new Counter({ name: 'tessera_tokens_issued_total', help: 'x', labelNames: ['grant', 'instance'], registers: [reference] });
    const cases: [string, string, number, number, string | undefined][] = [
      ['/oauth/v2/token', 'POST', 200, 0.0004, 'client_credentials'],
      ['/oauth/v2/token', 'POST', 200, 0.003, 'client_credentials'],
      ['/oauth/v2/token', 'POST', 401, 0.002, undefined],
      ['/oauth/v2/keys', 'GET', 200, 3, undefined], // above every bound
      ['/oauth/v2/keys', 'GET', 200, 0.001, undefined], // on a bound
    ];
    const scrape = async (): Promise<string> => metrics.registry.metrics();
    for (let round = 0; round < 2; round++) {
      for (const [route, method, status, seconds, grant] of cases) {
        const request = { route, method, notes: { transport: 'http', instanceId: 'i1', ...(grant === undefined ? {} : { grant }) } } as unknown as ObservedRequest;
        metrics.httpObserver.onResponse?.(request, status, seconds);
        requests.labels(route, method, 'http', `${Math.floor(status / 100)}xx`).inc();
        latency.labels(route, method, 'http').observe(seconds);
        if (grant !== undefined) tokens.labels(grant, 'i1').inc();
      }
      // Scraped between rounds: what was handed over is not handed over twice.
      const ours = await scrape();
      const theirs = await reference.metrics();
      for (const name of ['tessera_http_requests_total', 'tessera_http_request_duration_seconds', 'tessera_tokens_issued_total']) {
        expect(lines(ours, name).sort()).toEqual(lines(theirs, name).sort());
        expect(lines(ours, name).length).toBeGreaterThan(0);
      }
    }
    expect(await scrape()).toContain('tessera_http_request_duration_seconds_count{route="/oauth/v2/token",method="POST",transport="http"} 6');
    expect(await scrape()).toContain('tessera_tokens_issued_total{grant="client_credentials",instance="i1"} 4');
  });
});

describe('access-log drops', () => {
  it('are counted from the request log at scrape time, and absent when the log cannot drop lines', async () => {
    let dropped = 0;
    const metrics = createMetrics({ onError: () => undefined, onServerError: () => undefined, droppedLines: () => dropped });
    const line = async (): Promise<string | undefined> => (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith('tessera_access_log_dropped_lines_total '));
    expect(await line()).toBe('tessera_access_log_dropped_lines_total 0');
    dropped = 7;
    expect(await line()).toBe('tessera_access_log_dropped_lines_total 7');
    dropped = 9;
    expect(await line()).toBe('tessera_access_log_dropped_lines_total 9');
    const without = createMetrics({ onError: () => undefined, onServerError: () => undefined });
    expect(await without.registry.metrics()).not.toContain('tessera_access_log_dropped_lines_total');
  });
});
