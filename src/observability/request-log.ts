/**
 * What the node logs about failed requests: every reply with a 5xx status and every error a
 * handler threw, each with the request's id (style guide §6: internal errors are logged in full
 * with the request id; the client sees a fixed message).
 */
import type { HttpRequest } from '../http/types.js';
import type { NodeLogger } from './logger.js';

export interface RequestLog {
  /** A handler threw (the adapter answered 500). */
  onError(error: unknown, request: HttpRequest | undefined): void;
  /** A reply with status 500 or above went out. */
  onServerError(request: HttpRequest | undefined, status: number): void;
}

export function createRequestLog(logger: NodeLogger): RequestLog {
  return {
    onError(err, request) {
      logger.error({ err, requestId: request?.requestId, method: request?.method, path: request?.path }, 'request failed');
    },
    onServerError(request, status) {
      logger.error({ requestId: request?.requestId, method: request?.method, path: request?.path, route: request?.route, status }, 'answered with a server error');
    },
  };
}
