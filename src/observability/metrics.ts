/**
 * Prometheus metrics (GET /metrics, docs/operations/observability.md): requests and latency by
 * route template or RPC method, HTTP method, transport and status class on every transport;
 * tokens issued by grant (and instance), logins by result and reason, store append latency,
 * and gauges read at scrape time. One registry per node, no globals. Series are bound once and
 * count requests, tokens and latencies into plain numbers that prom-client receives at scrape
 * time, so a request costs lookups and increments: no label objects, no hashing, no closures.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HttpObserver, Transport } from '../http/types.js';
import type { RequestLog } from './request-log.js';

export interface NodeMetrics {
  readonly registry: Registry;
  readonly httpObserver: HttpObserver;
  /** Registers a gauge whose value is read at scrape time. */
  gauge(name: string, help: string, read: () => number): void;
  /** Registers a constant gauge of 1 whose labels describe the node (e.g. the HTTP adapter). */
  info(name: string, help: string, labels: Readonly<Record<string, string>>): void;
  /** One store append took `seconds` (`failed`: it threw). */
  observeAppend(seconds: number, failed: boolean): void;
  /** A rate limit refused a request of the instance. */
  countRateLimitRejection(limit: string, instanceId: string): void;
  /** This node applied another node's change `seconds` after it was committed (change-feed lag). */
  observeChangeFeedLag(seconds: number): void;
  /** One delivery attempt of an outbox message (kind `mail`/`sms`; delivered, failed, abandoned). */
  outboxDelivery(kind: string, result: 'delivered' | 'failed' | 'abandoned'): void;
}

export interface MetricsOptions {
  /** Label tokens issued with their instance id (one series per instance and grant); default true. */
  readonly instanceLabel?: boolean;
}

/** One (route, method, transport, status class): counted here, handed to prom-client at scrape time. */
interface Series {
  /** Requests not yet added to the prom-client child (flushed by the counter's collect()). */
  pending: number;
  readonly child: Counter.Internal;
  readonly latency: LatencySeries;
}

const TRANSPORTS: readonly Transport[] = ['http', 'connect', 'grpc-web', 'grpc'];
const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** Methods counted by name; anything else (clients choose it) is `other`, keeping the label bounded. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/**
 * gRPC code → the HTTP status class of the same error (style guide §6 table), so a failed gRPC or
 * gRPC-web call (HTTP 200 on the wire) counts as the 4xx/5xx it is.
 */
const RPC_CODE_CLASS: readonly number[] = [2, 4, 5, 4, 5, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 4];
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createMetrics(log: RequestLog, options: MetricsOptions = {}): NodeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tessera_' });
  const requests = new Counter({
    name: 'tessera_http_requests_total',
    help: 'Requests on every transport by route template (or RPC method), HTTP method, transport and status class (failed RPCs by their code).',
    labelNames: ['route', 'method', 'transport', 'status'] as const,
    registers: [registry],
    collect() {
      for (const series of counted) {
        if (series.pending === 0) continue;
        series.child.inc(series.pending);
        series.pending = 0;
      }
    },
  });
  const latency = new LatencyHistogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'Request latency by route template (or RPC method), HTTP method and transport.',
    labelNames: ['route', 'method', 'transport'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const counted: Series[] = [];
  const tokens = createTokenCounter(registry, options.instanceLabel !== false);
  const logins = new Counter({
    name: 'tessera_logins_total',
    help: 'Login checks of the login UI by method (password, idp), result (success, failure) and failure reason.',
    labelNames: ['method', 'result', 'reason'] as const,
    registers: [registry],
  });
  const appends = new Histogram({
    name: 'tessera_store_append_duration_seconds',
    help: 'Store appends (events and rows of one command, one transaction) by outcome.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rejections = createLabelledCounter(registry, options.instanceLabel !== false, {
    name: 'tessera_rate_limit_rejections_total',
    help: 'Requests refused by a rate limit (429), by limit',
    label: 'limit',
  });
  const feedLag = new Histogram({
    name: 'tessera_change_feed_lag_seconds',
    help: "Time from another node's commit until this node applied it from the change feed (PostgreSQL; includes clock skew between nodes).",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const outboxDeliveries = new Counter({
    name: 'tessera_outbox_deliveries_total',
    help: 'Delivery attempts of outbox messages by kind (mail, sms) and result (delivered; failed: retried later; abandoned: the last attempt failed).',
    labelNames: ['kind', 'result'] as const,
    registers: [registry],
  });
  const readDropped = log.droppedLines;
  if (readDropped !== undefined) {
    let reported = 0;
    new Counter({
      name: 'tessera_access_log_dropped_lines_total',
      help: 'Access-log lines dropped because the log reader (stdout) was slower than the requests or gone (bounded buffer, docs/operations/observability.md).',
      registers: [registry],
      collect() {
        const dropped = readDropped();
        if (dropped > reported) this.inc(dropped - reported);
        reported = dropped;
      },
    });
  }
  const appendOk = appends.labels('ok');
  const appendFailed = appends.labels('error');

  // route → method → [transport × class]: bound children, created on first use.
  const cache = new Map<string, Map<string, (Series | undefined)[]>>();
  function seriesOf(route: string, method: string, transport: Transport, statusClass: number): Series {
    let methods = cache.get(route);
    if (methods === undefined) cache.set(route, (methods = new Map()));
    let slots = methods.get(method);
    if (slots === undefined) methods.set(method, (slots = []));
    const transportIndex = TRANSPORTS.indexOf(transport);
    const slot = transportIndex * CLASSES.length + statusClass - 1;
    let series = slots[slot];
    if (series === undefined) {
      // The latency series has no status label: the status classes of one transport share it.
      let shared: LatencySeries | undefined;
      for (let other = transportIndex * CLASSES.length; other < (transportIndex + 1) * CLASSES.length && shared === undefined; other++) shared = slots[other]?.latency;
      series = { pending: 0, child: requests.labels(route, method, transport, CLASSES[statusClass - 1] as string), latency: shared ?? latency.series(route, method, transport) };
      slots[slot] = series;
      counted.push(series);
    }
    return series;
  }

  const loginCache = new Map<string, Counter.Internal>();
  function countLogin(outcome: string): void {
    let child = loginCache.get(outcome);
    if (child === undefined) {
      const [method = '', reason = ''] = outcome.split(':');
      loginCache.set(outcome, (child = logins.labels(method, reason === 'success' ? 'success' : 'failure', reason === 'success' ? '' : reason)));
    }
    child.inc();
  }

  return {
    registry,
    httpObserver: {
      onResponse(request, status, seconds) {
        const notes = request?.notes;
        const route = request?.route ?? notes?.rpc ?? 'unmatched';
        const method = request !== undefined && METHODS.has(request.method) ? request.method : 'other';
        const series = seriesOf(route, method, notes?.transport ?? 'http', statusClassOf(status, notes?.rpcCode));
        series.pending += 1;
        series.latency.observe(seconds);
        if (notes?.grant !== undefined) tokens.count(notes.grant, notes.instanceId ?? '');
        if (notes?.login !== undefined) countLogin(notes.login);
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
    observeAppend(seconds, failed) {
      (failed ? appendFailed : appendOk).observe(seconds);
    },
    countRateLimitRejection(limit, instanceId) {
      rejections.count(limit, instanceId);
    },
    observeChangeFeedLag(seconds) {
      feedLag.observe(Math.max(0, seconds));
    },
    outboxDelivery(kind, result) {
      outboxDeliveries.labels(kind, result).inc();
    },
  };
}

/** 1..5: the RPC code's class when the call is an RPC with a code, else the HTTP status's. */
function statusClassOf(status: number, rpcCode: number | undefined): number {
  if (rpcCode !== undefined) return RPC_CODE_CLASS[rpcCode] ?? 5;
  const cls = Math.floor(status / 100);
  return cls >= 1 && cls <= 5 ? cls : 5;
}

/** Tokens issued by grant type, and by instance unless that label is turned off. */
function createTokenCounter(registry: Registry, byInstance: boolean): { count(grant: string, instanceId: string): void } {
  return createLabelledCounter(registry, byInstance, { name: 'tessera_tokens_issued_total', help: 'Token responses of the token endpoint by grant type', label: 'grant' });
}

/** A counter by one label, and by instance unless TESSERA_METRICS_INSTANCE_LABEL turned that label off; children cached. */
function createLabelledCounter(registry: Registry, byInstance: boolean, spec: { readonly name: string; readonly help: string; readonly label: string }): { count(value: string, instanceId: string): void } {
  const counter = new Counter({
    name: spec.name,
    help: byInstance ? `${spec.help} and instance.` : `${spec.help}.`,
    labelNames: byInstance ? [spec.label, 'instance'] : [spec.label],
    registers: [registry],
    collect() {
      for (const byValue of children.values()) {
        for (const entry of byValue.values()) {
          if (entry.pending === 0) continue;
          entry.child.inc(entry.pending);
          entry.pending = 0;
        }
      }
    },
  });
  const children = new Map<string, Map<string, { pending: number; readonly child: Counter.Internal }>>();
  return {
    count(value, instanceId) {
      const instance = byInstance ? instanceId : '';
      let byValue = children.get(value);
      if (byValue === undefined) children.set(value, (byValue = new Map()));
      let entry = byValue.get(instance);
      if (entry === undefined) byValue.set(instance, (entry = { pending: 0, child: byInstance ? counter.labels(value, instance) : counter.labels(value) }));
      entry.pending += 1;
    },
  };
}

/** One label set of a LatencyHistogram: plain counters, no allocation per observation. */
class LatencySeries {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }
}

type HistogramValues = Awaited<ReturnType<Histogram['get']>>;

/**
 * A prom-client Histogram (same registry entry, same exposition) whose series are bound once
 * and observe into plain counters: prom-client's own observe validates and hashes the labels
 * and allocates per call. Only `series(...).observe` is used to record.
 */
class LatencyHistogram<T extends string> extends Histogram<T> {
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly bounds: readonly number[];
  private readonly names: readonly T[];
  private readonly all: LatencySeries[] = [];

  constructor(configuration: ConstructorParameters<typeof Histogram<T>>[0] & { readonly labelNames: readonly T[]; readonly buckets: readonly number[] }) {
    super(configuration);
    this.metricName = configuration.name;
    this.metricHelp = configuration.help;
    this.bounds = [...configuration.buckets].sort((a, b) => a - b);
    this.names = configuration.labelNames;
  }

  series(...values: string[]): LatencySeries {
    const labels: Record<string, string> = {};
    this.names.forEach((name, i) => (labels[name] = values[i] ?? ''));
    const series = new LatencySeries(labels, this.bounds);
    this.all.push(series);
    return series;
  }

  override get(): Promise<HistogramValues> {
    return Promise.resolve(this.snapshot());
  }

  /** What the registry renders (prom-client prefers it over get()). */
  getForPromString(): Promise<HistogramValues> {
    return Promise.resolve(this.snapshot());
  }

  override reset(): void {
    super.reset();
    // The base constructor calls reset() before this class's fields exist.
    for (const series of this.all ?? []) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }

  private snapshot(): HistogramValues {
    const name = this.metricName;
    const values: HistogramValues['values'] = [];
    for (const series of this.all) {
      if (series.count === 0) continue;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i] ?? 0;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: `${name}_bucket` });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${name}_count` });
    }
    const result: Omit<HistogramValues, 'collect'> = { name, help: this.metricHelp, type: 'histogram' as unknown as HistogramValues['type'], values, aggregator: 'sum' };
    return result as HistogramValues;
  }
}

