/**
 * Connect and gRPC-web (binary, JSON and text mode) on the main port: Connect routers whose every method calls the shared
 * RpcInvoker (rpc-registration.ts), reached through our own HTTP adapter as the router's
 * fallback for `/<package>.<Service>/<Method>` paths. gRPC-web calls go to a router reading
 * the request inside our implementation; Connect's unary protocol decodes the message before
 * any hook, so a failure there is answered here, as our own `invalid_argument`. Errors leave
 * only through toConnectError.
 */
import type { DescService } from '@bufbuild/protobuf';
import { Code, createConnectRouter, type ConnectRouter } from '@connectrpc/connect';
import { errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { compressionBrotli, compressionGzip } from '@connectrpc/connect-node';
import { toConnectError } from './connect-error.js';
import type { ClientOrigin } from '../../http/client-origin.js';
import type { HttpReply, HttpRequest } from '../../http/types.js';
import type { RpcInvoker } from '../rpc.js';
import { decodeTextBody, isGrpcWebText, toBinaryRequest, toTextResponse } from './grpc-web-text.js';
import { callContextValues, malformedRequest, registerServices, type CallRecord, type Reading } from './rpc-registration.js';

export type ConnectFallback = (req: HttpRequest) => Promise<HttpReply | undefined>;

const safeHost = /^[A-Za-z0-9.\-:[\]]+$/;

/** Request encodings every RPC port accepts (Connect lists them when refusing another). */
export const ACCEPT_COMPRESSION = [compressionGzip, compressionBrotli];

/**
 * The HTTP router's fallback: answers RPC paths of the registered methods, undefined for
 * anything else so the router can send its own 404.
 */
export function createConnectFallback(services: readonly DescService[], invoke: RpcInvoker): ConnectFallback {
  const connect = handlersOf(createConnectRouter({ grpc: false, grpcWeb: false, acceptCompression: ACCEPT_COMPRESSION }), services, invoke, 'unary');
  const grpcWeb = handlersOf(createConnectRouter({ connect: false, grpc: false, acceptCompression: ACCEPT_COMPRESSION }), services, invoke, 'streamed');
  return async (req) => {
    const contentType = req.headers['content-type'] ?? '';
    const isGrpcWeb = contentType.startsWith('application/grpc-web');
    const handler = (isGrpcWeb ? grpcWeb : connect).get(req.path);
    if (handler === undefined) return undefined;
    const notes = req.notes;
    if (notes !== undefined) {
      notes.transport = isGrpcWeb ? 'grpc-web' : 'connect';
      notes.rpc = handler.requestPath;
    }
    const record: CallRecord = { remoteAddress: req.remoteAddress, scheme: req.scheme, host: req.headers.host, requestId: req.requestId, invoked: false, notes };
    if (isGrpcWebText(contentType)) {
      const request = toBinaryRequest(toUniversalRequest(req, record), decodeTextBody(req.body));
      return toHttpReply(await toTextResponse(await handler(request)));
    }
    const response = await handler(toUniversalRequest(req, record));
    if (!isGrpcWeb && !record.invoked && isDecodingFailure(response.status)) {
      if (notes !== undefined) notes.rpcCode = Code.InvalidArgument;
      return malformedReply;
    }
    return toHttpReply(response);
  };
}

function handlersOf(router: ConnectRouter, services: readonly DescService[], invoke: RpcInvoker, reading: Reading): Map<string, UniversalHandler> {
  registerServices(router, services, invoke, reading);
  return new Map(router.handlers.map((h) => [h.requestPath, h]));
}

/**
 * Connect answers a message it could not decode with 400 (JSON, quoting the input) or 500
 * (binary); before our implementation ran, either can only mean that.
 */
function isDecodingFailure(status: number): boolean {
  return status === 400 || status === 500;
}

const malformedReply: HttpReply = Object.freeze({
  status: 400,
  headers: Object.freeze({ 'content-type': 'application/json' }),
  body: errorToJsonBytes(toConnectError(malformedRequest()), {}),
});

function toUniversalRequest(req: HttpRequest, record: CallRecord): UniversalServerRequest {
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
    contextValues: callContextValues(record),
  };
}

async function* bodyOf(body: Buffer): AsyncIterable<Uint8Array> {
  if (body.length > 0) yield body;
}

/** Connect and gRPC-web carry trailers in the body. */
function toHttpReply(response: UniversalServerResponse): HttpReply {
  const headers: Record<string, string> = {};
  response.header?.forEach((value, name) => {
    headers[name] = value;
  });
  return response.body === undefined
    ? { status: response.status, headers }
    : { status: response.status, headers, body: response.body };
}
