/**
 * Prometheus metrics (GET /metrics): requests by route and status, a latency histogram by
 * route, and gauges read at scrape time (actors loaded). One registry per node, no globals.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HttpObserver } from '../http/types.js';
import type { RequestLog } from './request-log.js';

export interface NodeMetrics {
  readonly registry: Registry;
  readonly httpObserver: HttpObserver;
  /** Registers a gauge whose value is read at scrape time. */
  gauge(name: string, help: string, read: () => number): void;
  /** Registers a constant gauge of 1 whose labels describe the node (e.g. the HTTP adapter). */
  info(name: string, help: string, labels: Readonly<Record<string, string>>): void;
}

export function createMetrics(log: RequestLog): NodeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tessera_' });
  const requests = new Counter({
    name: 'tessera_http_requests_total',
    help: 'HTTP requests by route pattern and status code.',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern.',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    registry,
    httpObserver: {
      onResponse(request, status, seconds) {
        const route = request?.route ?? 'unmatched';
        requests.inc({ route, status: String(status) });
        latency.observe({ route }, seconds);
        if (status >= 500) log.onServerError(request, status);
        log.onResponse?.(request, status, seconds);
      },
      onError: log.onError,
    },
    gauge(name, help, read) {
      new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
    },
    info(name, help, labels) {
      new Gauge({ name, help, labelNames: Object.keys(labels), registers: [registry] }).set(labels, 1);
    },
  };
}
