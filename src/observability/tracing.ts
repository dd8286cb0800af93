/**
 * OpenTelemetry tracing (docs/operations/tracing.md), off unless
 * TESSERA_OTLP_TRACES_ENDPOINT is set: then the SDK is loaded (not before, so a node without
 * tracing carries none of it), spans are batched to that OTLP/HTTP endpoint, W3C `traceparent`
 * of incoming requests is continued and injected into outbound calls.
 *
 * Spans: one per HTTP request (server; named by the route template once the router matched),
 * per RPC (all transports; the gRPC port's requests start their trace here), per actor ask, per
 * store append, per outbound call (client). Code outside this module sees only the `Tracer`
 * port below; with tracing off it is `NO_TRACER`, whose `run` is a direct call.
 */
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ActorAddress, AskTracer, StoreAdapter } from '../../actors/index.js';
import type { RpcInvoker } from '../api/rpc.js';
import type { Config } from '../config/schema.js';
import type { HttpHandler, HttpReply } from '../http/types.js';

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** What instrumented code uses: run `work` inside a span. */
export interface Tracer {
  readonly enabled: boolean;
  /**
   * Runs `work` in a child span of the active one (or of the `traceparent` in `carrier` when
   * nothing is active). The span ends when `work` settles; a rejection marks it as an error.
   */
  run<T>(name: string, kind: 'internal' | 'server' | 'client', attributes: SpanAttributes, work: (span: SpanHandle) => Promise<T>, carrier?: Readonly<Record<string, string>>): Promise<T>;
  /** Adds the active span's `traceparent` to outgoing headers (nothing when tracing is off). */
  inject(headers: Record<string, string>): void;
}

/** The part of a span instrumented code may touch. */
export interface SpanHandle {
  setAttribute(key: string, value: string | number | boolean): void;
  updateName(name: string): void;
}

export interface Tracing {
  readonly tracer: Tracer;
  /** Flushes the spans not yet exported (at shutdown). */
  shutdown(): Promise<void>;
}

const NO_SPAN: SpanHandle = { setAttribute: () => undefined, updateName: () => undefined };

export const NO_TRACER: Tracer = {
  enabled: false,
  run: (_name, _kind, _attributes, work) => work(NO_SPAN),
  inject: () => undefined,
};

const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT } as const;

export async function startTracing(config: Pick<Config, 'otlpTracesEndpoint' | 'traceSampleRatio'>): Promise<Tracing> {
  if (config.otlpTracesEndpoint === undefined) return { tracer: NO_TRACER, shutdown: () => Promise.resolve() };
  const [{ NodeTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'tessera' }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.traceSampleRatio) }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.otlpTracesEndpoint }), { scheduledDelayMillis: 1_000 })],
  });
  // Installs the AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  const otel = trace.getTracer('tessera');

  const tracer: Tracer = {
    enabled: true,
    run(name, kind, attributes, work, carrier) {
      const active = trace.getSpan(context.active());
      const parent = active === undefined && carrier !== undefined ? propagation.extract(ROOT_CONTEXT, carrier) : context.active();
      return otel.startActiveSpan(name, { kind: KINDS[kind], attributes }, parent, async (span: Span) => {
        try {
          return await work(span);
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    inject(headers) {
      propagation.inject(context.active(), headers);
    },
  };
  return {
    tracer,
    async shutdown() {
      await provider.shutdown();
    },
  };
}

/**
 * A server span per HTTP request, continuing an incoming `traceparent`; named
 * `METHOD /route/{template}` once the router set the route (never the raw path, which carries ids).
 */
export function withTracing(handler: HttpHandler, tracer: Tracer): HttpHandler {
  if (!tracer.enabled) return handler;
  return (req) =>
    tracer.run(
      req.method,
      'server',
      { 'http.request.method': req.method, 'url.scheme': req.scheme, 'client.address': req.remoteAddress },
      async (span): Promise<HttpReply> => {
        const reply = await handler(req);
        span.setAttribute('http.response.status_code', reply.status);
        if (req.route !== undefined) {
          span.updateName(`${req.method} ${req.route}`);
          span.setAttribute('http.route', req.route);
        }
        return reply;
      },
      req.headers,
    );
}

/** The store with a span around each append (the write of a command); every other call untouched. */
export function tracedStore(store: StoreAdapter, tracer: Tracer): StoreAdapter {
  if (!tracer.enabled) return store;
  const append: StoreAdapter['append'] = (request) =>
    tracer.run('store.append', 'internal', { 'tessera.instance_id': request.instanceId, 'tessera.events': request.events.length }, () => store.append(request));
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') return append;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A span per actor ask: queueing, the command and its append. */
export function askTracer(tracer: Tracer): AskTracer {
  return (address: ActorAddress, work) => tracer.run(`actor.ask ${address.kind}`, 'internal', 'instanceId' in address ? { 'tessera.instance_id': address.instanceId } : {}, work);
}

/**
 * A span per RPC on every transport (`rpc package.Service/Method`). Over HTTP it is a child of
 * the request's span; on the gRPC port it continues the call's `traceparent` metadata.
 */
export function tracedInvoker(invoke: RpcInvoker, tracer: Tracer): RpcInvoker {
  if (!tracer.enabled) return invoke;
  return (method, request, meta) =>
    tracer.run(`rpc ${method.parent.typeName}/${method.name}`, meta.protocol === 'grpc' ? 'server' : 'internal', { 'rpc.system': meta.protocol, 'rpc.service': method.parent.typeName, 'rpc.method': method.name }, () => invoke(method, request, meta), meta.headers);
}

/**
 * A client span around one outbound call (targets, identity providers), with the
 * `traceparent` to send. Outbound code has no node at hand, so this uses OpenTelemetry's global
 * tracer, which is a no-op until startTracing registered the SDK.
 */
export function clientSpan<T>(method: string, url: URL, work: (traceHeaders: Record<string, string>, span: SpanHandle) => Promise<T>): Promise<T> {
  const attributes = { 'http.request.method': method, 'server.address': url.hostname, 'url.full': `${url.origin}${url.pathname}` };
  return trace.getTracer('tessera').startActiveSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span: Span) => {
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    try {
      return await work(headers, span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A client span around one mail sent over SMTP (`smtp send`, the server's name and port): the
 * delivery's own outcome decides the status, since a refused mail is an answer, not a throw.
 */
export async function smtpSpan<T extends { readonly success: boolean; readonly answer: string }>(host: string, port: number, work: () => Promise<T>): Promise<T> {
  return trace.getTracer('tessera').startActiveSpan('smtp send', { kind: SpanKind.CLIENT, attributes: { 'server.address': host, 'server.port': port, 'network.protocol.name': 'smtp' } }, async (span: Span) => {
    try {
      const result = await work();
      if (!result.success) span.setStatus({ code: SpanStatusCode.ERROR, message: result.answer });
      return result;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
