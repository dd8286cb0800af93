/**
 * The gRPC port's handlers (grpc-server.ts): the API's methods (gRPC protocol only), gRPC health
 * and server reflection over the same descriptors, and the serving of each call. Built on the
 * port's first call, not at start: Connect, the router, one handler per method, and the
 * reflection and health descriptors stay out of an idle node's memory (#13).
 */
import { constants, type Http2ServerRequest, type Http2ServerResponse, type IncomingHttpHeaders } from 'node:http2';
import type { DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, createConnectRouter } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from '@connectrpc/connect-node';
import type { OriginResolver } from '../../http/client-origin.js';
import { acceptRequestId } from '../../http/request-id.js';
import { continueTrace, toTraceparent } from '../../http/trace-context.js';
import type { HttpObserver, ObservedRequest, RequestNotes } from '../../http/types.js';
import type { RpcInvoker } from '../rpc.js';
import { ACCEPT_COMPRESSION } from './connect-bridge.js';
import { createHealthState, type HealthState } from './grpc-health.js';
import { createReflectionIndex, registerReflection } from './grpc-reflection.js';
import { answerStatus } from './grpc-server.js';
import { callContextValues, registerServices } from './rpc-registration.js';
import { Health } from '../../gen/grpc/health/v1/health_pb.js';
import { ServerReflection } from '../../gen/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1Alpha } from '../../gen/grpc/reflection/v1alpha/reflection_pb.js';

export interface GrpcRouter {
  readonly health: HealthState;
  /** Answers one call (an unknown method with `unimplemented`). */
  serve(req: Http2ServerRequest, res: Http2ServerResponse): void;
}

export interface GrpcRouterOptions {
  readonly services: readonly DescService[];
  readonly invoke: RpcInvoker;
  readonly maxMessageBytes: number;
  readonly shutdownSignal: AbortSignal;
  /** Client address, scheme and authority of a call. */
  readonly origin: OriginResolver;
  readonly observer: HttpObserver | undefined;
  readonly onCallFailed: ((error: unknown, call: { readonly requestId: string; readonly path: string }) => void) | undefined;
}

export function buildGrpcRouter(options: GrpcRouterOptions): GrpcRouter {
  const router = createConnectRouter({
    connect: false,
    grpcWeb: false,
    acceptCompression: ACCEPT_COMPRESSION,
    readMaxBytes: options.maxMessageBytes,
    shutdownSignal: options.shutdownSignal,
  });
  registerServices(router, options.services, options.invoke, 'streamed');
  const health = createHealthState(options.services.map((service) => service.typeName));
  health.register(router);
  registerReflection(router, createReflectionIndex([...options.services, Health, ServerReflection, ServerReflectionV1Alpha]));
  const handlers = new Map(router.handlers.map((h) => [h.requestPath, h]));
  return { health, serve: (req, res) => serveCall(handlers, req, res, options) };
}

function serveCall(handlers: ReadonlyMap<string, UniversalHandler>, req: Http2ServerRequest, res: Http2ServerResponse, options: GrpcRouterOptions): void {
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
  const client = options.origin(req.socket.remoteAddress ?? '', forwardingHeaders(req.headers));
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
function observe(options: GrpcRouterOptions, call: ObservedCall): void {
  call.notes.rpcCode ??= statusCodeOf(call.response?.trailer) ?? statusCodeOf(call.response?.header) ?? Code.Canceled;
  options.observer?.onResponse?.(call, 200, (performance.now() - call.startedAt) / 1000);
}

function statusCodeOf(headers: Headers | undefined): number | undefined {
  const value = headers?.get('grpc-status');
  return value === null || value === undefined ? undefined : Number(value);
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
