/**
 * Connect, gRPC-web (and gRPC) on the main port: one Connect router whose every method calls
 * the shared RpcInvoker, reached through our own HTTP adapter as the router's fallback for
 * `/<package>.<Service>/<Method>` paths. Errors leave only through toConnectError.
 */
import type { DescMethod, DescMethodUnary, DescService, Message } from '@bufbuild/protobuf';
import {
  createConnectRouter,
  createContextKey,
  createContextValues,
  type ConnectRouter,
  type ContextValues,
  type HandlerContext,
} from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { ProgrammerError } from '../../../actors/index.js';
import { toConnectError } from '../../http/error-mapping.js';
import type { HttpReply, HttpRequest } from '../../http/types.js';
import type { CallMeta, RpcInvoker } from '../rpc.js';

export type ConnectFallback = (req: HttpRequest) => Promise<HttpReply | undefined>;

const remoteAddressKey = createContextKey<string>('', { description: 'remote address' });
const safeHost = /^[A-Za-z0-9.\-:[\]]+$/;

/** Context values carrying what HandlerContext lacks (the peer address). */
export function callContextValues(remoteAddress: string): ContextValues {
  return createContextValues().set(remoteAddressKey, remoteAddress);
}

/** Registers every method of `services` on `router`, each calling `invoke`. Unary only. */
export function registerServices(router: ConnectRouter, services: readonly DescService[], invoke: RpcInvoker): void {
  for (const service of services) {
    for (const method of service.methods) {
      if (!isUnary(method)) {
        throw new ProgrammerError(`${service.typeName}.${method.name}: RpcInvoker serves unary methods only`);
      }
      router.rpc(method, unaryImpl(method, invoke));
    }
  }
}

function isUnary(method: DescMethod): method is DescMethodUnary {
  return method.methodKind === 'unary';
}

function unaryImpl(method: DescMethodUnary, invoke: RpcInvoker) {
  return async (request: Message, ctx: HandlerContext): Promise<Message> => {
    try {
      return (await invoke(method, request, metaOf(ctx))).message;
    } catch (error) {
      throw toConnectError(error);
    }
  };
}

function metaOf(ctx: HandlerContext): CallMeta {
  const headers: Record<string, string> = {};
  ctx.requestHeader.forEach((value, name) => {
    headers[name] = value;
  });
  return {
    headers,
    host: headers.host ?? new URL(ctx.url).host, // HTTP/2 sends :authority, not Host
    protocol: protocolOf(headers['content-type'] ?? ''),
    signal: ctx.signal,
    remoteAddress: ctx.values.get(remoteAddressKey),
  };
}

function protocolOf(contentType: string): CallMeta['protocol'] {
  if (contentType.startsWith('application/grpc-web')) return 'grpc-web';
  if (contentType.startsWith('application/grpc')) return 'grpc';
  return 'connect';
}

/**
 * The HTTP router's fallback: answers RPC paths of the registered methods, undefined for
 * anything else so the router can send its own 404.
 */
export function createConnectFallback(services: readonly DescService[], invoke: RpcInvoker): ConnectFallback {
  const router = createConnectRouter();
  registerServices(router, services, invoke);
  const handlers = new Map<string, UniversalHandler>(router.handlers.map((h) => [h.requestPath, h]));
  return async (req) => {
    const handler = handlers.get(req.path);
    if (handler === undefined) return undefined;
    return toHttpReply(await handler(toUniversalRequest(req)));
  };
}

function toUniversalRequest(req: HttpRequest): UniversalServerRequest {
  const host = req.headers.host !== undefined && safeHost.test(req.headers.host) ? req.headers.host : 'localhost';
  const header = new Headers();
  for (const [name, value] of Object.entries(req.headers)) header.append(name, value);
  return {
    httpVersion: '1.1',
    method: req.method,
    url: `http://${host}${req.path}${req.query === '' ? '' : `?${req.query}`}`,
    header,
    body: bodyOf(req.body),
    signal: req.signal,
    contextValues: callContextValues(req.remoteAddress),
  };
}

async function* bodyOf(body: Buffer): AsyncIterable<Uint8Array> {
  if (body.length > 0) yield body;
}

/** Connect and gRPC-web carry trailers in the body; gRPC's cannot go over HTTP/1 (dropped). */
function toHttpReply(response: UniversalServerResponse): HttpReply {
  const headers: Record<string, string> = {};
  response.header?.forEach((value, name) => {
    headers[name] = value;
  });
  return response.body === undefined
    ? { status: response.status, headers }
    : { status: response.status, headers, body: response.body };
}
