/**
 * Client authentication at the token, introspection and revocation endpoints (RFC 6749 §2.3,
 * RFC 7523 §2.2, OIDC Core §9): client_secret_basic (id and secret form-urlencoded inside Basic,
 * §2.3.1), client_secret_post, none (client id only) and private_key_jwt. Exactly one mechanism
 * per request (several → invalid_request); any failure → invalid_client. The app's configured
 * auth method must be the one used. Machine users authenticate with username + machine secret.
 */
import { hash } from 'node:crypto';
import { type AggregateRecord, type MachineUser, OAuthError, type OidcAuthMethod, type TtlStore } from '../../../actors/index.js';
import type { ClientApp } from '../../query/app-clients.js';
import type { RequestNotes } from '../../http/types.js';
import type { ClientCache, ResolvedClient } from './client-cache.js';
import { invalidClient, invalidRequest, type FormParams } from './form.js';
import { verifyClientAssertion } from './client-assertion.js';
import type { RateLimits } from '../../http/rate-limits.js';

export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export type ClientAuthMethod = 'basic' | 'post' | 'none' | 'private_key_jwt';

export type ClientCredentials =
  | { readonly method: 'basic' | 'post'; readonly clientId: string; readonly secret: string }
  | { readonly method: 'none'; readonly clientId: string }
  | { readonly method: 'private_key_jwt'; readonly clientId: string | undefined; readonly assertion: string }
  | { readonly method: 'absent' };

export type AuthenticatedClient =
  | { readonly kind: 'app'; readonly clientId: string; readonly method: ClientAuthMethod; readonly app: ClientApp }
  | { readonly kind: 'machine'; readonly clientId: string; readonly method: ClientAuthMethod; readonly user: AggregateRecord<MachineUser> };

export interface ClientAuthContext {
  readonly clients: ClientCache;
  /** Requests and failed authentications per client are limited (TESSERA_RATE_LIMIT_CLIENT*). */
  readonly limits: RateLimits;
  readonly ttl: TtlStore;
  readonly instanceId: string;
  readonly issuer: string;
  /** The URL of the endpoint called (also accepted as assertion audience). */
  readonly endpointUrl: string;
  /** Epoch milliseconds. */
  readonly now: number;
  /** The request's notes: the authenticated client id lands here (access log). */
  readonly notes?: RequestNotes | undefined;
}

export interface ClientAuthPolicy {
  readonly methods: readonly ClientAuthMethod[];
  /** Machine users (username + machine secret) may authenticate here. */
  readonly allowMachineUsers: boolean;
}

/** Reads the credentials of a request; several mechanisms or a malformed one → invalid_request. */
export function parseClientCredentials(params: FormParams, authorization: string | undefined): ClientCredentials {
  const basic = authorization !== undefined && /^basic /i.test(authorization) ? authorization.slice(6).trim() : undefined;
  const secret = params.get('client_secret');
  const assertion = params.get('client_assertion');
  const assertionType = params.get('client_assertion_type');
  const clientId = params.get('client_id');
  const used = (basic !== undefined ? 1 : 0) + (secret !== undefined ? 1 : 0) + (assertion !== undefined || assertionType !== undefined ? 1 : 0);
  if (used > 1) throw invalidRequest('use exactly one client authentication mechanism');
  if (basic !== undefined) {
    const decoded = decodeBasic(basic);
    if (clientId !== undefined && clientId !== decoded.clientId) throw invalidRequest('client_id differs from the Basic credentials');
    return decoded;
  }
  if (secret !== undefined) {
    if (clientId === undefined) throw invalidRequest('client_secret needs client_id');
    return { method: 'post', clientId, secret };
  }
  if (assertion !== undefined || assertionType !== undefined) {
    if (assertionType !== JWT_BEARER_ASSERTION_TYPE) throw invalidRequest('client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    if (assertion === undefined) throw invalidRequest('client_assertion is required');
    return { method: 'private_key_jwt', clientId, assertion };
  }
  return clientId === undefined ? { method: 'absent' } : { method: 'none', clientId };
}

/** Where Basic credentials are decoded (no Buffer per request); a longer value gets its own. */
const BASIC_BYTES = Buffer.allocUnsafeSlow(1024);

/** `base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1). */
function decodeBasic(value: string): { method: 'basic'; clientId: string; secret: string } {
  const text = value.length <= BASIC_BYTES.length ? BASIC_BYTES.toString('utf8', 0, BASIC_BYTES.write(value, 'base64')) : Buffer.from(value, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || colon < 1) throw invalidClient('malformed Basic credentials');
  try {
    return { method: 'basic', clientId: formDecode(text.slice(0, colon)), secret: formDecode(text.slice(colon + 1)) };
  } catch {
    throw invalidClient('malformed Basic credentials');
  }
}

function formDecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text; // nothing encoded (the usual client id and secret)
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

/**
 * The authenticated client, or invalid_client (always a promise: it never throws). Written as
 * one `then` after the rate-limit count instead of async functions: the token hot path passes
 * here on every request, and each async frame and await is garbage.
 */
export function authenticateClient(creds: ClientCredentials, ctx: ClientAuthContext, policy: ClientAuthPolicy): Promise<AuthenticatedClient> {
  let counted: Promise<void>;
  let clientId: string;
  let limitKey: string;
  try {
    if (creds.method === 'absent') throw invalidClient('client authentication is required');
    if (!policy.methods.includes(creds.method)) throw invalidClient('this client authentication method is not supported here');
    clientId = creds.method === 'private_key_jwt' ? (creds.clientId ?? peekAssertionIssuer(creds.assertion)) : creds.clientId;
    limitKey = `${ctx.instanceId}\u0000${clientId}`;
    ctx.limits.assertClientNotBlocked(limitKey);
    counted = ctx.limits.consume(ctx.instanceId, 'client', limitKey);
  } catch (error) {
    return Promise.reject(error);
  }
  const present = creds; // narrowed: 'absent' threw above
  return counted.then(() => verifyCounted(present, clientId, limitKey, ctx, policy));
}

/** After the count: the client verified, or its failure counted (invalid_client) and rethrown. */
function verifyCounted(creds: Exclude<ClientCredentials, { method: 'absent' }>, clientId: string, limitKey: string, ctx: ClientAuthContext, policy: ClientAuthPolicy): AuthenticatedClient | Promise<AuthenticatedClient> {
  let verified: AuthenticatedClient | Promise<AuthenticatedClient>;
  try {
    verified = verifyClient(creds, clientId, ctx, policy);
  } catch (error) {
    return afterFailure(error, ctx, limitKey);
  }
  return verified instanceof Promise ? verified.catch((error: unknown) => afterFailure(error, ctx, limitKey)) : verified;
}

/** Rethrows `error`, once a failed authentication (invalid_client) is counted. */
function afterFailure(error: unknown, ctx: ClientAuthContext, limitKey: string): Promise<never> {
  if (!(error instanceof OAuthError && error.oauthCode === 'invalid_client')) return Promise.reject(error);
  return ctx.limits.clientAuthFailed(ctx.instanceId, limitKey).then(() => Promise.reject(error));
}

/**
 * Verifies against the held client first (a Map lookup); when that fails, the client is read
 * anew from the store once before refusing, so a secret, key or client written on another node
 * a moment ago is accepted before the change feed arrives (client-cache.ts). An unknown client
 * id is not re-read (misses are held so that unknown ids cost no store read). Synchronous when
 * the client is held and no assertion is to be checked; may throw.
 */
function verifyClient(creds: Exclude<ClientCredentials, { method: 'absent' }>, clientId: string, ctx: ClientAuthContext, policy: ClientAuthPolicy): AuthenticatedClient | Promise<AuthenticatedClient> {
  const held = ctx.clients.resolve(ctx.instanceId, clientId);
  if (held instanceof Promise) return held.then((resolved) => verifyResolved(resolved, creds, clientId, ctx, policy));
  if (held.kind === 'unknown') throw invalidClient();
  let verified: AuthenticatedClient | Promise<AuthenticatedClient>;
  try {
    verified = verifyResolved(held, creds, clientId, ctx, policy);
  } catch (error) {
    return verifyReloaded(error, creds, clientId, ctx, policy);
  }
  return verified instanceof Promise ? verified.catch((error: unknown) => verifyReloaded(error, creds, clientId, ctx, policy)) : verified;
}

/** After a failed check against the held client: invalid_client is checked once more against the client read anew. */
function verifyReloaded(error: unknown, creds: Exclude<ClientCredentials, { method: 'absent' }>, clientId: string, ctx: ClientAuthContext, policy: ClientAuthPolicy): Promise<AuthenticatedClient> {
  if (!(error instanceof OAuthError && error.oauthCode === 'invalid_client')) return Promise.reject(error);
  return ctx.clients.reload(ctx.instanceId, clientId).then((resolved) => verifyResolved(resolved, creds, clientId, ctx, policy));
}

/** Synchronous but for a client assertion (private_key_jwt), which reads the jti store. */
function verifyResolved(resolved: ResolvedClient, creds: Exclude<ClientCredentials, { method: 'absent' }>, clientId: string, ctx: ClientAuthContext, policy: ClientAuthPolicy): AuthenticatedClient | Promise<AuthenticatedClient> {
  if (resolved.kind === 'machine') {
    const user = resolved.user;
    const ok = policy.allowMachineUsers && (creds.method === 'basic' || creds.method === 'post') && user.state.state === 'active' && isSecretValid(resolved.secretDigest, creds.secret);
    if (!ok) throw invalidClient();
    if (ctx.notes !== undefined) ctx.notes.clientId = clientId;
    return { kind: 'machine', clientId, method: creds.method, user };
  }
  if (resolved.kind === 'unknown') throw invalidClient();
  const app = resolved.app;
  const configured: OidcAuthMethod = app.app.state.config.type === 'oidc' ? app.app.state.config.oidc.authMethod : app.app.state.config.api.authMethod;
  if (configured !== creds.method) throw invalidClient('the client is registered for another authentication method');
  if (creds.method === 'private_key_jwt') return verifyClientAssertion(creds.assertion, app, ctx).then(() => authenticatedApp(app, clientId, creds.method, ctx));
  if ((creds.method === 'basic' || creds.method === 'post') && !isSecretValid(resolved.secretDigest, creds.secret)) throw invalidClient();
  return authenticatedApp(app, clientId, creds.method, ctx);
}

function authenticatedApp(app: ClientApp, clientId: string, method: AuthenticatedClient['method'], ctx: ClientAuthContext): AuthenticatedClient {
  if (ctx.notes !== undefined) ctx.notes.clientId = clientId;
  return { kind: 'app', clientId, method, app };
}

/**
 * One SHA-256 and a constant-time compare against the stored digest, decoded once when the
 * client was loaded (client-cache.ts `decodeSecretDigest`); undefined (no secret) never matches.
 * The digest comes as a 'binary' (latin1) string, one character per byte, not as a Buffer: a
 * Buffer is one more ArrayBuffer per token request, and every scavenge sweeps each one
 * (bench/README.md, "Where a scavenge's pause goes"). Every byte is compared, whatever differs.
 */
export function isSecretValid(expected: Buffer | undefined, secret: string): boolean {
  if (expected === undefined) return false;
  const actual = hash('sha256', secret, 'binary'); // latin1: one character per byte
  if (expected.length !== actual.length) return false;
  let difference = 0;
  for (let i = 0; i < actual.length; i++) difference |= (expected[i] as number) ^ actual.charCodeAt(i); // i is below both lengths
  return difference === 0;
}

function peekAssertionIssuer(assertion: string): string {
  try {
    const payload = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown };
    return typeof payload.iss === 'string' ? payload.iss : '';
  } catch {
    return '';
  }
}
