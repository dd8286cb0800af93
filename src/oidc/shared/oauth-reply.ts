/**
 * Replies of the OAuth endpoints: JSON with `Cache-Control: no-store` (RFC 6749 §5.1), errors as
 * `{error, error_description}` (§5.2) with the status the spec assigns (401 invalid_client /
 * invalid_token, 403 insufficient_scope, 500 server_error, else 400), `WWW-Authenticate` for
 * Basic client authentication and Bearer tokens (RFC 6750 §3).
 */
import { AppError, OAuthError, type OAuthErrorCode } from '../../../actors/index.js';
import { toWireError } from '../../http/error-mapping.js';
import { json, jsonHeadersWith } from '../../http/reply.js';
import type { RouteHandler } from '../../http/router.js';
import type { HttpReply, HttpRequest } from '../../http/types.js';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;
/** The headers of every successful OAuth JSON reply, built once (no header record per request). */
const NO_STORE_JSON = jsonHeadersWith(NO_STORE);

export interface ErrorLogger {
  error(details: Record<string, unknown>, message: string): void;
}

/** A 200 JSON reply that must not be cached. */
export function noStoreJson(body: unknown, status = 200): HttpReply {
  return { status, headers: NO_STORE_JSON, body: JSON.stringify(body) };
}

/** A 200 reply of JSON text already serialised (e.g. token-response.ts `tokenResponseJson`) that must not be cached. */
export function noStoreJsonText(text: string): HttpReply {
  return { status: 200, headers: NO_STORE_JSON, body: text };
}

export function statusOfOAuthCode(code: OAuthErrorCode): number {
  switch (code) {
    case 'invalid_client':
    case 'invalid_token':
      return 401;
    case 'insufficient_scope':
    case 'access_denied':
      return 403;
    case 'server_error':
      return 500;
    case 'temporarily_unavailable':
      return 503;
    default:
      return 400;
  }
}

/** The OAuth error reply of any thrown value (non-AppErrors become server_error and are logged). */
export function toOAuthErrorReply(error: unknown, req: HttpRequest, logger?: ErrorLogger): HttpReply {
  if (error instanceof OAuthError) {
    const headers: Record<string, string> = { ...NO_STORE };
    if (error.oauthCode === 'invalid_client' && /^basic /i.test(req.headers.authorization ?? '')) headers['www-authenticate'] = 'Basic realm="tessera"';
    return json(statusOfOAuthCode(error.oauthCode), { error: error.oauthCode, error_description: error.message }, headers);
  }
  if (error instanceof AppError) {
    const wire = toWireError(error);
    // A rate limit (429) and a full queue (503) are temporary refusals: temporarily_unavailable, with their status and Retry-After.
    const fallback: OAuthErrorCode = wire.httpStatus === 429 || wire.httpStatus === 503 ? 'temporarily_unavailable' : wire.httpStatus >= 500 ? 'server_error' : wire.httpStatus === 403 ? 'access_denied' : 'invalid_request';
    return json(wire.httpStatus, { error: fallback, error_description: error.message }, wire.headers === undefined ? NO_STORE : { ...NO_STORE, ...wire.headers });
  }
  logger?.error({ err: error, path: req.path }, 'oauth endpoint failed');
  return json(500, { error: 'server_error', error_description: 'unexpected error' }, NO_STORE);
}

/**
 * Wraps an OAuth endpoint handler so every failure becomes its OAuth error reply: a rejection, or
 * an exception the handler throws before its first promise (answered at once, without one).
 */
export function withOAuthErrors(handler: (req: HttpRequest) => Promise<HttpReply>, logger?: ErrorLogger): RouteHandler {
  return (req) => {
    let reply: Promise<HttpReply>;
    try {
      reply = handler(req);
    } catch (error) {
      return toOAuthErrorReply(error, req, logger);
    }
    return reply.catch((error: unknown) => toOAuthErrorReply(error, req, logger));
  };
}
