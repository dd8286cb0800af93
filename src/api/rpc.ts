/**
 * One handler per RPC, shared by every transport (JSON/HTTP, Connect, gRPC-web, gRPC).
 * A transport turns its wire request into the request message, then calls the invoker;
 * the invoker resolves the tenant, authenticates, checks the permission, validates and runs
 * the handler. Transports know protobuf and HTTP; handlers know neither.
 */
import type { DescMethod, DescService, Message } from '@bufbuild/protobuf';
import type { RequestNotes } from '../http/types.js';

/** What a transport knows about the call besides the request message. */
export interface CallMeta {
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Host (or :authority) the request was sent to, port included if any. */
  readonly host: string;
  readonly protocol: 'json' | 'connect' | 'grpc-web' | 'grpc';
  readonly signal: AbortSignal;
  /** The client's address (through trusted proxies, src/http/client-origin.ts). */
  readonly remoteAddress: string;
  /** Identifies the request in logs (src/http/request-id.ts). */
  readonly requestId: string;
  /** The scheme the client used (TLS listener or trusted proxy). */
  readonly scheme: 'http' | 'https';
  /** Where the invoker notes the instance and caller for the access log and metrics. */
  readonly notes?: RequestNotes | undefined;
}

export interface RpcResult {
  readonly message: Message;
  /** HTTP status for the JSON transport (201 for creates, 200 otherwise). */
  readonly status: number;
}

/**
 * Runs one RPC. Throws AppError (or anything else, which becomes `internal`).
 * `request` is a message of `method.input`; the result a message of `method.output`.
 */
export type RpcInvoker = (method: DescMethod, request: Message, meta: CallMeta) => Promise<RpcResult>;

/** The services a node serves on every transport, in registration order. */
export interface ServiceRegistry {
  readonly services: readonly DescService[];
}
