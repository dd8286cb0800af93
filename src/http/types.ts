/**
 * The plain request/reply records every HTTP adapter (uWebSockets.js, node:http) produces
 * and consumes. Handlers above src/http never see a framework's request or response object.
 */
import type { FairScheduler } from './fair-scheduler.js';

/** A request, copied out of the framework before any await. */
export interface HttpRequest {
  /** Upper case: GET, POST, ... */
  readonly method: string;
  /** The raw path without the query string, as sent (percent-encoding kept). */
  readonly path: string;
  /** The raw query string without the leading `?` ('' when none). */
  readonly query: string;
  /** Header names in lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The whole body, read under the size limit (empty when none). */
  readonly body: Buffer;
  /** The client's address: the peer, or what trusted proxies report (client-origin.ts). */
  readonly remoteAddress: string;
  /** The scheme the client used: the listener's, or what trusted proxies report (client-origin.ts). */
  readonly scheme: 'http' | 'https';
  /** Aborted when the client goes away before the reply is written. */
  readonly signal: AbortSignal;
  /** Route parameters, percent-decoded; set by the router. */
  readonly params: Readonly<Record<string, string>>;
  /** Monotonic start time (performance.now()) for latency metrics. */
  readonly startedAt: number;
  /** The route pattern that matched (for metrics labels); set by the router. */
  readonly route?: string;
  /** Identifies the request in logs and in the X-Request-Id reply header (request-id.ts). */
  readonly requestId: string;
  /** The W3C trace this request continues (a valid incoming `traceparent`), with its own span id. */
  readonly trace?: TraceContext | undefined;
  /** What the layers above learn for the access log and metrics; absent on hand-made requests. */
  readonly notes?: RequestNotes;
}

/** How a request reached the node: JSON/HTTP (and every non-RPC route), Connect, gRPC-web, gRPC. */
export type Transport = 'http' | 'connect' | 'grpc-web' | 'grpc';

/**
 * Facts about a request learnt while it is handled, for its access-log line and metrics
 * (docs/operations/observability.md). Written by whoever learns them; never read by handlers.
 */
export interface RequestNotes {
  transport: Transport;
  /** The RPC's full method name (`/package.Service/Method`, its path) on Connect, gRPC-web and gRPC. */
  rpc: string | undefined;
  instanceId: string | undefined;
  /** The authenticated user (API callers, system users as `system:<name>`). */
  userId: string | undefined;
  /** The authenticated OAuth client (protocol endpoints). */
  clientId: string | undefined;
  /** The gRPC status code an RPC ended with (0 for OK). */
  rpcCode: number | undefined;
  /** The grant type of a token the token endpoint issued. */
  grant: string | undefined;
  /** The outcome of a login check: `success` or the failure reason. */
  login: string | undefined;
}

/** A W3C Trace Context position (trace-context.ts): the caller's trace and this request's span. */
export interface TraceContext {
  readonly traceId: string;
  /** The caller's span (`parent-id` of the incoming traceparent). */
  readonly parentId: string;
  /** This request's span, sent back in the reply's traceparent. */
  readonly spanId: string;
  readonly flags: string;
}

/** What the observer needs of a request: an HTTP exchange or a call on the gRPC port. */
export type ObservedRequest = Pick<HttpRequest, 'method' | 'path' | 'route' | 'requestId' | 'trace' | 'notes'>;

export type HttpBody = string | Uint8Array | AsyncIterable<Uint8Array>;

export interface HttpReply {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** Absent for no body; an async iterable streams the body with backpressure. */
  readonly body?: HttpBody;
}

export type HttpHandler = (request: HttpRequest) => Promise<HttpReply> | HttpReply;

/**
 * Answers at once, before fair admission, the requests whose reply is already in memory
 * (pre-serialised, constant cost, no await); undefined: the request takes the ordinary path
 * (its lane, then the handler). docs/architecture.md, "Fair admission", says why that stays fair.
 */
export type ImmediateHandler = (request: HttpRequest) => WholeReply | undefined;

/** A reply whose body is in memory (never a stream). */
export interface WholeReply extends HttpReply {
  readonly body?: string | Uint8Array;
}

export interface HttpServerOptions {
  readonly host: string;
  /** 0 picks a free port; the bound one is in ListeningServer.port. */
  readonly port: number;
  /** Bodies above this answer 413. */
  readonly maxBodyBytes: number;
  /**
   * Per-path overrides of `maxBodyBytes` (exact raw path → bytes), for the few routes that take
   * large documents (the organization import). Bodies are still read whole into memory.
   */
  readonly bodyLimits?: Readonly<Record<string, number>>;
  /** A body not complete within this answers 408. */
  readonly bodyTimeoutMs: number;
  /** More header fields than this answer 431. */
  readonly maxHeaderCount: number;
  /** Header fields (names, values, separators) above this many bytes in total answer 431. */
  readonly maxHeaderBytes: number;
  /** Serve HTTPS with this certificate and key instead of plain HTTP. */
  readonly tls?: TlsFiles;
  /** Sent as `x-tessera-worker` on every reply: which worker thread answered (nodes with TESSERA_WORKERS > 1). */
  readonly worker?: string;
  /** Bind with SO_REUSEPORT so several worker threads listen on one port (node:http on Node >= 22.12; uWS always does on Linux). */
  readonly reusePort?: boolean;
  /** Fair admission across instances while the node is busy (fair-scheduler.ts); one listener per scheduler. */
  readonly fair?: FairScheduler;
  /** Replies answered without waiting for admission (router.ts `immediateRoutes`). */
  readonly immediate?: ImmediateHandler;
}

/** A PEM certificate chain and its unencrypted private key, by path and as read at startup. */
export interface TlsFiles {
  readonly certPath: string;
  readonly keyPath: string;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface ListeningServer {
  readonly port: number;
  /** Stops accepting, waits for in-flight requests (at most `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** Hooks the adapter calls for observability; all optional. */
export interface HttpObserver {
  /** Called once per completed request. */
  onResponse?(request: ObservedRequest | undefined, status: number, seconds: number): void;
  /** Called when a handler throws (the adapter answers 500 without details). */
  onError?(error: unknown, request: HttpRequest | undefined): void;
}

export interface HttpAdapter {
  readonly name: 'uws' | 'node';
  listen(handler: HttpHandler, options: HttpServerOptions, observer?: HttpObserver): Promise<ListeningServer>;
}
