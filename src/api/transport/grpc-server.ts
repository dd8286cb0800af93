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
 * (access log, metrics) once its response is written. The port listens from start; the services,
 * the invoker and the handlers (grpc-router.ts: Connect, the descriptors) load on the first call,
 * which waits for that once (idle memory, #13).
 */
import { createSecureServer, createServer, type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import { createOriginResolver, type OriginResolver } from '../../http/client-origin.js';
import { GrpcCode } from '../../http/error-mapping.js';
import { acceptRequestId } from '../../http/request-id.js';
import type { HttpObserver, TlsFiles } from '../../http/types.js';
import type { RpcInvoker } from '../rpc.js';
import type { GrpcRouter } from './grpc-router.js';

export interface GrpcServerOptions {
  readonly host: string;
  /** 0 picks a free port; the bound one is in GrpcServer.port. */
  readonly port: number;
  /** The services and the invoker, loaded on the first call. */
  readonly api: () => Promise<{ readonly services: readonly DescService[]; readonly invoke: RpcInvoker }>;
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
    (building ??= Promise.all([options.api(), import('./grpc-router.js')]).then(
      ([{ services, invoke }, { buildGrpcRouter }]) => {
        router = buildGrpcRouter({ services, invoke, maxMessageBytes: options.maxMessageBytes ?? defaultMaxMessageBytes, shutdownSignal: shutdown.signal, origin, observer: options.observer, onCallFailed: options.onCallFailed });
        if (closing) router.health.setNotServing();
        return router;
      },
      (error: unknown) => {
        building = undefined; // the next call tries again
        throw error;
      },
    ));
  const serve = (req: Http2ServerRequest, res: Http2ServerResponse) => {
    if (router !== undefined) return router.serve(req, res);
    build().then(
      (built) => built.serve(req, res),
      (error: unknown) => {
        options.onCallFailed?.(error, { requestId: acceptRequestId(undefined), path: req.url });
        answerStatus(res, GrpcCode.Internal, 'internal error');
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

/** A trailers-only gRPC answer (status in the headers, no message). */
export function answerStatus(res: Http2ServerResponse, code: number, message: string): void {
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

