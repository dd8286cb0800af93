/**
 * Resolves a presented access token (RFC 6750) to what it stands for: a JWT we signed (kid of
 * a published key, our issuer, a `jti` and `scope`, not expired) or an opaque token found by
 * digest; either way its grant and its id must not be revoked. ID tokens are not access tokens
 * (they carry no `scope`). Undefined for any problem: callers answer inactive / invalid_token.
 */
import type { Signer, VerifyJwtOptions } from '../../crypto/signer.js';
import { looksLikeJwt } from '../../crypto/jwt-bearer.js';
import { type AccessTokenRecord, type ActorClaim, grantOfJti, type TokenStore } from './token-store.js';

export interface AccessTokenContext {
  readonly signer: Signer;
  readonly tokens: TokenStore;
  readonly instanceId: string;
  /** Expected `iss` of JWTs; undefined skips the check (the API: the instance key already binds them). */
  readonly issuer: string | undefined;
  /** Epoch ms. */
  readonly now: number;
}

export async function resolveAccessToken(ctx: AccessTokenContext, token: string, options: { readonly checkRevocation?: boolean } = {}): Promise<AccessTokenRecord | undefined> {
  if (token.length > 8192) return undefined;
  const record = looksLikeJwt(token) ? await decodeJwtAccessToken(ctx, token) : await ctx.tokens.findAccessToken(ctx.instanceId, token);
  if (record === undefined || record.exp * 1000 <= ctx.now) return undefined;
  if (options.checkRevocation !== false && (await ctx.tokens.isRevoked(ctx.instanceId, record))) return undefined;
  return record;
}

const REQUIRED_CLAIMS: readonly string[] = Object.freeze(['exp', 'iat', 'jti', 'sub']);

async function decodeJwtAccessToken(ctx: AccessTokenContext, token: string): Promise<AccessTokenRecord | undefined> {
  let payload: Readonly<Record<string, unknown>>;
  try {
    const options: VerifyJwtOptions = ctx.issuer === undefined ? { now: ctx.now, requiredClaims: REQUIRED_CLAIMS } : { issuer: ctx.issuer, now: ctx.now, requiredClaims: REQUIRED_CLAIMS };
    payload = (await ctx.signer.verifyJwt(ctx.instanceId, token, options)).payload;
  } catch {
    return undefined;
  }
  const { jti, sub, scope, client_id: clientId, aud, iat, exp } = payload;
  if (typeof jti !== 'string' || typeof sub !== 'string' || typeof scope !== 'string' || typeof clientId !== 'string') return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  const audience = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  const record: { -readonly [K in keyof AccessTokenRecord]: AccessTokenRecord[K] } = {
    format: 'jwt',
    jti,
    grantId: grantOfJti(jti),
    sub,
    clientId,
    aud: audience,
    scope: scope.split(' ').filter((s) => s !== ''),
    iat,
    exp,
  };
  // Set only when present (no spread of throwaway objects per request).
  if (typeof payload.sid === 'string') record.sid = payload.sid;
  if (isActor(payload.act)) record.act = payload.act;
  return record;
}

function isActor(value: unknown): value is ActorClaim {
  return typeof value === 'object' && value !== null && typeof (value as { sub?: unknown }).sub === 'string';
}
