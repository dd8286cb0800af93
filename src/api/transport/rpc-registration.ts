/**
 * Registers our unary methods with a Connect router, every one calling the shared RpcInvoker.
 * For gRPC and gRPC-web (`streamed`) the library is told they are client-streaming — the same
 * bytes on the wire — so the request message is read inside our implementation: a message
 * that cannot be decoded (garbage protobuf, broken JSON) is our `invalid_argument` with a fixed
 * message, never the library's `internal` nor a message quoting, and maybe splitting, the
 * input (issue #12 items 7 and 8). Connect's unary protocol parses before any hook; its
 * failures are answered in connect-bridge.ts.
 */
import type { DescMessage, DescMethod, DescMethodClientStreaming, DescMethodUnary, DescService, Message } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type ContextValues, type HandlerContext } from '@connectrpc/connect';
import { AppError, invalidArgument, ProgrammerError, resourceExhausted } from '../../../actors/index.js';
import { toConnectError } from './connect-error.js';
import type { RequestNotes } from '../../http/types.js';
import type { CallMeta, RpcInvoker } from '../rpc.js';

/** What the transport knows about one call, shared with the implementation through the context. */
export interface CallRecord {
  /** The client's address (through trusted proxies, src/http/client-origin.ts). */
  readonly remoteAddress: string;
  /** The scheme the client used (TLS listener or trusted proxy). */
  readonly scheme: 'http' | 'https';
  /** The Host the client asked for (a trusted proxy's forwarded host), when known. */
  readonly host?: string | undefined;
  readonly requestId: string;
  /** Set when the request message was read and the invoker called. */
  invoked: boolean;
  /** The request's notes (access log, metrics): the RPC's status code lands here. */
  readonly notes?: RequestNotes | undefined;
}

const callKey = createContextKey<CallRecord | undefined>(undefined, { description: 'tessera call record' });

export function callContextValues(record: CallRecord): ContextValues {
  return createContextValues().set(callKey, record);
}

export type Reading = 'unary' | 'streamed';

/** Registers every method of `services` on `router`. Unary only. */
export function registerServices(router: ConnectRouter, services: readonly DescService[], invoke: RpcInvoker, reading: Reading): void {
  for (const service of services) {
    for (const method of service.methods) {
      if (!isUnary(method)) throw new ProgrammerError(`${service.typeName}.${method.name}: RpcInvoker serves unary methods only`);
      if (reading === 'unary') router.rpc(method, (request: Message, ctx) => call(method, request, ctx, invoke));
      else router.rpc(asClientStreaming(method), (requests: AsyncIterable<Message>, ctx) => callStreamed(method, requests, ctx, invoke));
    }
  }
}

function isUnary(method: DescMethod): method is DescMethodUnary {
  return method.methodKind === 'unary';
}

/** The same method, declared client-streaming: gRPC frames both alike. */
export function asClientStreaming<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>): DescMethodClientStreaming<I, O> {
  return { ...method, methodKind: 'client_streaming' };
}

async function call(method: DescMethodUnary, request: Message, ctx: HandlerContext, invoke: RpcInvoker): Promise<Message> {
  const record = ctx.values.get(callKey);
  if (record !== undefined) record.invoked = true;
  try {
    const result = await invoke(method, request, metaOf(ctx, record));
    if (record?.notes !== undefined) record.notes.rpcCode = 0; // OK
    return result.message;
  } catch (error) {
    const connectError = toConnectError(error);
    if (record?.notes !== undefined) record.notes.rpcCode = connectError.code;
    throw connectError;
  }
}

/** gRPC and gRPC-web: the request message read here, a read failure noted with its code. */
async function callStreamed(method: DescMethodUnary, requests: AsyncIterable<Message>, ctx: HandlerContext, invoke: RpcInvoker): Promise<Message> {
  let request: Message;
  try {
    request = await readSingle(requests);
  } catch (error) {
    const notes = ctx.values.get(callKey)?.notes;
    if (notes !== undefined) notes.rpcCode = error instanceof ConnectError ? error.code : Code.Internal;
    throw error;
  }
  return call(method, request, ctx, invoke);
}

/** Exactly one request message; a read failure becomes an error the client can act on. */
export async function readSingle<T>(requests: AsyncIterable<T>): Promise<T> {
  const iterator = requests[Symbol.asyncIterator]();
  let first: IteratorResult<T>;
  let second: IteratorResult<T>;
  try {
    first = await iterator.next();
    second = first.done === true ? first : await iterator.next();
  } catch (error) {
    throw asReadError(error);
  }
  if (first.done === true) throw toConnectError(invalidArgument('request.missing_message', 'the call carries no request message'));
  if (second.done !== true) throw toConnectError(invalidArgument('request.extra_message', 'a unary call takes exactly one request message'));
  return first.value;
}

/** Library codes that already say what went wrong keep it; everything else is undecodable input. */
function asReadError(error: unknown): ConnectError {
  const code = error instanceof ConnectError ? error.code : undefined;
  if (code === Code.Canceled || code === Code.DeadlineExceeded || code === Code.Unimplemented) return error as ConnectError;
  if (code === Code.ResourceExhausted) return toConnectError(resourceExhausted('request.too_large', 'the request message is larger than the limit', { cause: error }));
  return toConnectError(malformedRequest(error));
}

/** The error for a request message that cannot be decoded; never quotes the input. */
export function malformedRequest(cause?: unknown): AppError {
  return invalidArgument('request.malformed', 'the request message cannot be decoded', cause === undefined ? undefined : { cause });
}

function metaOf(ctx: HandlerContext, record: CallRecord | undefined): CallMeta {
  const headers: Record<string, string> = {};
  ctx.requestHeader.forEach((value, name) => {
    headers[name] = value;
  });
  return {
    headers,
    host: record?.host ?? headers.host ?? new URL(ctx.url).host, // HTTP/2 sends :authority, not Host
    protocol: protocolOf(headers['content-type'] ?? ''),
    signal: ctx.signal,
    remoteAddress: record?.remoteAddress ?? '',
    scheme: record?.scheme ?? 'http',
    requestId: record?.requestId ?? '',
    notes: record?.notes,
  };
}

function protocolOf(contentType: string): CallMeta['protocol'] {
  if (contentType.startsWith('application/grpc-web')) return 'grpc-web';
  if (contentType.startsWith('application/grpc')) return 'grpc';
  return 'connect';
}
