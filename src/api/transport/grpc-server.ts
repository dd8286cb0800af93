/**
/**
 * gRPC over HTTP/2 on its own port (cleartext h2c, or TLS with the node's certificate), serving
 * the same methods through the same invoker as the main port. Only the gRPC protocol is enabled
 * here; Connect and gRPC-web live on the main port. Request messages are size-limited (the main
 * port's adapter limits bodies; nothing else would here). Every stream gets an answer: a call
 * whose handling fails ends with `internal`, logged with its request id, never an open stream.
 * The port also serves gRPC health (NOT_SERVING once closing starts) and server reflection over
 * the same descriptors. Close is graceful: health watchers told, GOAWAY, then destroy after
 * `graceMs`. Each call's id is the metadata's `x-request-id` when acceptable (request-id.ts),
 * echoed in the response headers with the continued `traceparent`, and reported to the observer
 * (access log, metrics) once its response is written. The port listens from start; its
 * handlers (grpc-router.ts) are built on the first call, which waits for that once (idle memory, #13).
 */
import { constants, createSecureServer, createServer, type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type IncomingHttpHeaders, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from '@connectrpc/connect-node';
import { createOriginResolver, type OriginResolver } from '../../http/client-origin.js';
import { acceptRequestId } from '../../http/request-id.js';
import { continueTrace, toTraceparent } from '../../http/trace-context.js';
import type { HttpObserver, ObservedRequest, RequestNotes, TlsFiles } from '../../http/types.js';
import type { RpcInvoker } from '../rpc.js';
import type { GrpcRouter } from './grpc-router.js';
import { callContextValues } from './rpc-registration.js';

export interface GrpcServerOptions {
  readonly host: string;
  /** 0 picks a free port; the bound one is in GrpcServer.port. */
  readonly port: number;
  readonly services: readonly DescService[];
  readonly invoke: RpcInvoker;
  /** Largest request message accepted (default 4 MiB, as gRPC clients default to). */
  readonly maxMessageBytes?: number;
  /** Told about calls whose handling failed (the client got `internal`). */
  readonly onCallFailed?: (error: unknown, call: { readonly requestId: string; readonly path: string }) => void;
  /** gRPC over TLS (h2) with this certificate instead of cleartext h2c. */
  readonly tls?: TlsFiles;
  /** Client address, scheme and authority of a call (trusted proxies); default: the peer's. */
  readonly origin?: OriginResolver;
  /** Told about every answered call (HTTP status 200; the gRPC code in `notes.rpcCode`). */
  readonly observer?: HttpObserver;
}

export interface GrpcServer {
  readonly port: number;
  /** Stops accepting, lets in-flight calls finish for at most `graceMs`, then closes. */
  close(graceMs?: number): Promise<void>;
}

const defaultGraceMs = 5_000;
const defaultMaxMessageBytes = 4 * 1024 * 1024;

export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const shutdown = new AbortController();
  const origin = options.origin ?? createOriginResolver({ trustedProxies: [], defaultScheme: options.tls === undefined ? 'http' : 'https' });
  // The handlers are built on the first call (grpc-router.ts): an idle node keeps none of them.
  let router: GrpcRouter | undefined;
  let building: Promise<GrpcRouter> | undefined;
  let closing = false;
  const build = (): Promise<GrpcRouter> =>
    (building ??= import('./grpc-router.js').then(({ buildGrpcRouter }) => {
      router = buildGrpcRouter({ services: options.services, invoke: options.invoke, maxMessageBytes: options.maxMessageBytes ?? defaultMaxMessageBytes, shutdownSignal: shutdown.signal });
      if (closing) router.health.setNotServing();
      return router;
    }));
  const serve = (req: Http2ServerRequest, res: Http2ServerResponse) => {
    if (router !== undefined) return serveCall(router.handlers, req, res, options, origin);
    build().then(
      (built) => serveCall(built.handlers, req, res, options, origin),
      (error: unknown) => {
        options.onCallFailed?.(error, { requestId: acceptRequestId(undefined), path: req.url });
        answerStatus(res, Code.Internal, 'internal error');
      },
    );
  };
  const tls = options.tls;
  const server: Http2Server = tls === undefined ? createServer(serve) : createSecureServer({ cert: tls.cert, key: tls.key }, serve);
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await listen(server, options.host, options.port);
  const port = (server.address() as AddressInfo).port; // listening on TCP: always an AddressInfo
  return {
    port,
    close: (graceMs = defaultGraceMs) => {
      closing = true;
      router?.health.setNotServing();
      return closeServer(server, sessions, shutdown, graceMs);
    },
  };
}

function serveCall(handlers: ReadonlyMap<string, UniversalHandler>, req: Http2ServerRequest, res: Http2ServerResponse, options: GrpcServerOptions, origin: OriginResolver): void {
  const path = req.url.split('?', 1)[0] ?? '';
  const handler = handlers.get(path);
  const call = observedCall(req, handler?.requestPath);
  res.setHeader('x-request-id', call.requestId);
  if (call.trace !== undefined) res.setHeader('traceparent', toTraceparent(call.trace));
  // The stream's close is the one end every outcome shares (the library's own promise waits
  // for an 'end' event HTTP/2 responses do not emit).
  if (options.observer !== undefined) res.once('close', () => observe(options, call));
  if (handler === undefined) {
    call.notes.rpcCode = Code.Unimplemented;
    return answerStatus(res, Code.Unimplemented, 'unknown method');
  }
  const client = origin(req.socket.remoteAddress ?? '', forwardingHeaders(req.headers));
  const contextValues = callContextValues({ remoteAddress: client.address, scheme: client.scheme, host: client.host, requestId: call.requestId, invoked: false, notes: call.notes });
  handler(universalRequestFromNodeRequest(req, res, undefined, contextValues))
    .then((response) => {
      call.response = response;
      return universalResponseToNodeResponse(response, res);
    })
    .catch((error: unknown) => {
      const code = ConnectError.from(error).code;
      if (code === Code.Aborted) return void (call.notes.rpcCode ??= Code.Canceled); // the client went away
      call.notes.rpcCode = Code.Internal;
      options.onCallFailed?.(error, { requestId: call.requestId, path });
      if (!res.headersSent) return answerStatus(res, Code.Internal, 'internal error');
      res.stream.close(constants.NGHTTP2_INTERNAL_ERROR); // headers are out: reset the stream
    });
}

interface ObservedCall extends ObservedRequest {
  readonly startedAt: number;
  readonly notes: RequestNotes;
  response?: UniversalServerResponse;
}

/** What the access log and metrics see of a call; the route is the method's path when it is served here. */
function observedCall(req: Http2ServerRequest, rpc: string | undefined): ObservedCall {
  const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);
  const notes: RequestNotes = { transport: 'grpc', rpc, instanceId: undefined, userId: undefined, clientId: undefined, rpcCode: undefined, grant: undefined, login: undefined };
  return { method: 'POST', path: rpc ?? 'unknown', route: undefined, requestId: acceptRequestId(single(req.headers['x-request-id'])), trace: continueTrace(single(req.headers['traceparent'])), notes, startedAt: performance.now() };
}

/** The call's code: what the implementation noted, else what went on the wire. */
function observe(options: GrpcServerOptions, call: ObservedCall): void {
  call.notes.rpcCode ??= statusCodeOf(call.response?.trailer) ?? statusCodeOf(call.response?.header) ?? Code.Canceled;
  options.observer?.onResponse?.(call, 200, (performance.now() - call.startedAt) / 1000);
}

function statusCodeOf(headers: Headers | undefined): number | undefined {
  const value = headers?.get('grpc-status');
  return value === null || value === undefined ? undefined : Number(value);
}

/** A trailers-only gRPC answer (status in the headers, no message). */
function answerStatus(res: Http2ServerResponse, code: Code, message: string): void {
  if (res.stream.destroyed) return;
  res.writeHead(200, { 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) });
  res.end();
}

function listen(server: Http2Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(
  server: Http2Server,
  sessions: Set<ServerHttp2Session>,
  shutdown: AbortController,
  graceMs: number,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const session of sessions) session.close();
  const timer = setTimeout(() => {
    shutdown.abort();
    for (const session of sessions) session.destroy();
  }, graceMs);
  return closed.finally(() => clearTimeout(timer));
}

/** The headers the client origin reads, with `:authority` as the Host. */
function forwardingHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const picked: Record<string, string> = {};
  const authority = headers[':authority'];
  if (typeof authority === 'string') picked.host = authority;
  for (const name of ['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']) {
    const value = headers[name];
    if (value !== undefined) picked[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return picked;
}
