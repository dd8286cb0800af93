/**
 * gRPC over cleartext HTTP/2 (h2c) on its own port, serving the same methods through the same
 * invoker as the main port (connect-bridge). Only the gRPC protocol is enabled here; Connect
 * and gRPC-web live on the main port. Request messages are size-limited (the main port's adapter
 * limits bodies; nothing else would here). Close is graceful: GOAWAY, then destroy after `graceMs`.
 */
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { RpcInvoker } from '../rpc.js';
import { callContextValues, registerServices } from './connect-bridge.js';

export interface GrpcServerOptions {
  readonly host: string;
  /** 0 picks a free port; the bound one is in GrpcServer.port. */
  readonly port: number;
  readonly services: readonly DescService[];
  readonly invoke: RpcInvoker;
  /** Largest request message accepted (default 4 MiB, as gRPC clients default to). */
  readonly maxMessageBytes?: number;
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
  const handler = connectNodeAdapter({
    routes: (router) => registerServices(router, options.services, options.invoke),
    connect: false,
    grpcWeb: false,
    readMaxBytes: options.maxMessageBytes ?? defaultMaxMessageBytes,
    shutdownSignal: shutdown.signal,
    contextValues: (req) => callContextValues(req.socket.remoteAddress ?? ''),
  });
  const server = createServer(handler);
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await listen(server, options.host, options.port);
  const port = (server.address() as AddressInfo).port; // listening on TCP: always an AddressInfo
  return { port, close: (graceMs = defaultGraceMs) => closeServer(server, sessions, shutdown, graceMs) };
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
