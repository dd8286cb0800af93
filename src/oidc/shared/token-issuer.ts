/**
 * Issues the tokens of one grant (RFC 6749 §5.1, OIDC Core §3.1.3.3, RFC 9068-like JWT access
 * tokens with `typ: JWT` as the reference issues them): a JWT access token signed by the
 * instance key or an opaque one stored by digest (one TTL write), an ID token when asked, a
 * refresh token when asked. Every token carries the grant id (JWTs in their `jti`).
 */
import type { Config } from '../../config/schema.js';
import type { Signer } from '../../crypto/signer.js';
import type { ClaimHooks } from './claim-hooks.js';
import { type ClaimSubject, type Claims } from './claims.js';
import { signIdToken as buildIdToken } from './id-token.js';
import { type AccessTokenRecord, type ActorClaim, newGrantId, newJti, newTokenValue, type RefreshTokenRecord, tokenKey, type TokenStore } from './token-store.js';

export interface TokenLifetimes {
  readonly accessMs: number;
  readonly idMs: number;
  readonly refreshMs: number;
  readonly refreshIdleMs: number;
}

export function lifetimesOf(config: Config): TokenLifetimes {
  return { accessMs: config.accessTokenLifetime, idMs: config.idTokenLifetime, refreshMs: config.refreshTokenLifetime, refreshIdleMs: config.refreshTokenIdleLifetime };
}

export interface IssuerDeps {
  readonly signer: Signer;
  readonly tokens: TokenStore;
  readonly lifetimes: TokenLifetimes;
  /** preaccesstoken / preuserinfo function executions (none when absent). */
  readonly claimHooks?: ClaimHooks;
}

export interface IssueRequest {
  readonly instanceId: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly sub: string;
  readonly aud: readonly string[];
  readonly scope: readonly string[];
  readonly accessTokenFormat: 'opaque' | 'jwt';
  /** Epoch ms. */
  readonly now: number;
  readonly grantId?: string;
  readonly authTime?: number;
  readonly amr?: readonly string[];
  readonly act?: ActorClaim;
  /** The browser session the grant came from (code / implicit flows and their refreshes): `sid`. */
  readonly sid?: string;
  readonly clockSkewMs?: number;
  /**
   * Private claims of a JWT access token computed by the caller once per issuance (the role
   * claims when the app sets accessTokenRoleAssertion); ignored for opaque tokens.
   */
  readonly accessTokenClaims?: Claims;
  /** Issue an ID token for this subject and audience. */
  readonly idToken?: { readonly subject: ClaimSubject; readonly aud: readonly string[]; readonly withUserinfo: boolean; readonly roleClaims?: Claims };
  /**
   * Issue a refresh token; the grant ends at `absoluteExpiresAt` (epoch ms) and keeps its
   * original `scope` (a refresh may narrow one access token, not the grant; default: `scope`).
   */
  readonly refresh?: { readonly absoluteExpiresAt: number; readonly scope?: readonly string[] };
}

export interface IssuedTokens {
  readonly accessToken: string;
  readonly expiresIn: number;
  readonly record: AccessTokenRecord;
  readonly idToken?: string;
  readonly refreshToken?: string;
}

const JWT_TYP = Object.freeze({ typ: 'JWT' });

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export async function issueTokens(deps: IssuerDeps, req: IssueRequest): Promise<IssuedTokens> {
  const expiresIn = Math.floor(deps.lifetimes.accessMs / 1000);
  const record = accessRecordOf(req, expiresIn, req.grantId ?? newGrantId());
  const grantId = record.grantId;
  // The durable writes of this issuance: at most two (access and refresh token); no array and no
  // Promise.all for the usual single one (an opaque client_credentials token).
  let accessWrite: Promise<void> | undefined;
  let refreshWrite: Promise<void> | undefined;
  let accessToken: string;
  if (record.format === 'jwt') {
    accessToken = await deps.signer.signJwt(req.instanceId, await accessTokenClaimsOf(deps, req, record), JWT_TYP);
  } else {
    accessToken = newTokenValue(req.now);
    accessWrite = deps.tokens.putAccessToken(req.instanceId, accessToken, record);
  }
  const idToken = req.idToken === undefined ? undefined : await signIdToken(deps, req, record.iat);
  let refreshToken: string | undefined;
  if (req.refresh !== undefined) {
    refreshToken = newTokenValue(req.now);
    const expiresAt = Math.min(req.refresh.absoluteExpiresAt, req.now + deps.lifetimes.refreshIdleMs);
    const refreshRecord: RefreshTokenRecord = {
      grantId,
      sub: req.sub,
      clientId: req.clientId,
      aud: req.aud,
      scope: req.refresh.scope ?? req.scope,
      accessTokenFormat: record.format,
      absoluteExpiresAt: req.refresh.absoluteExpiresAt,
      expiresAt,
      accessToken: { format: record.format, ref: record.format === 'jwt' ? record.jti : tokenKey(accessToken), exp: record.exp },
      ...(req.authTime === undefined ? {} : { authTime: req.authTime }),
      ...(req.amr === undefined ? {} : { amr: req.amr }),
      ...(req.sid === undefined ? {} : { sid: req.sid }),
      ...(req.act === undefined ? {} : { act: req.act }),
    };
    refreshWrite = deps.tokens.putRefreshToken(req.instanceId, refreshToken, refreshRecord, expiresAt);
  }
  // Acknowledged only once every write is durable (both awaited; a failure of either rejects).
  if (accessWrite !== undefined && refreshWrite !== undefined) await Promise.all([accessWrite, refreshWrite]);
  else if (accessWrite !== undefined) await accessWrite;
  else if (refreshWrite !== undefined) await refreshWrite;
  const issued: Mutable<IssuedTokens> = { accessToken, expiresIn, record };
  if (idToken !== undefined) issued.idToken = idToken;
  if (refreshToken !== undefined) issued.refreshToken = refreshToken;
  return issued;
}

/**
 * `issueTokens` for a request with neither an ID token nor a refresh token (client_credentials),
 * with no promise where none is needed: a JWT signed synchronously (ES256, EdDSA, ring held, no
 * function executions) is returned as it is; an opaque token once its write is durable. May throw
 * instead of rejecting. The hot path of the token endpoint; the same tokens as `issueTokens`.
 */
export function issueAccessTokenNow(deps: IssuerDeps, req: IssueRequest): IssuedTokens | Promise<IssuedTokens> {
  if (req.idToken !== undefined || req.refresh !== undefined) return issueTokens(deps, req);
  const expiresIn = Math.floor(deps.lifetimes.accessMs / 1000);
  const record = accessRecordOf(req, expiresIn, req.grantId ?? newGrantId());
  if (record.format === 'jwt') {
    const signed = signAccessToken(deps, req, record);
    return typeof signed === 'string' ? { accessToken: signed, expiresIn, record } : signed.then((accessToken) => ({ accessToken, expiresIn, record }));
  }
  const accessToken = newTokenValue(req.now);
  return deps.tokens.putAccessToken(req.instanceId, accessToken, record).then(() => ({ accessToken, expiresIn, record }));
}

/** The access token's record (what an opaque token stores and a JWT carries). */
function accessRecordOf(req: IssueRequest, expiresIn: number, grantId: string): AccessTokenRecord {
  const iat = Math.floor(req.now / 1000);
  const skewSec = Math.floor((req.clockSkewMs ?? 0) / 1000);
  const built: Mutable<AccessTokenRecord> = {
    format: req.accessTokenFormat,
    jti: newJti(grantId),
    grantId,
    sub: req.sub,
    clientId: req.clientId,
    aud: req.aud,
    scope: req.scope,
    iat,
    exp: iat + expiresIn + skewSec,
  };
  // Assigned, not spread from a fresh {}: no throwaway object per token (same key order).
  if (req.authTime !== undefined) built.authTime = req.authTime;
  if (req.amr !== undefined) built.amr = req.amr;
  if (req.sid !== undefined) built.sid = req.sid;
  if (req.act !== undefined) built.act = req.act;
  return built;
}

/** The JWT access token's claims, after the preaccesstoken executions (if any). */
function accessTokenClaimsOf(deps: IssuerDeps, req: IssueRequest, record: AccessTokenRecord): Claims | Promise<Claims> {
  const own = accessTokenClaims(req.issuer, record);
  return hooked(deps, 'preaccesstoken', req, req.accessTokenClaims === undefined ? own : { ...req.accessTokenClaims, ...own });
}

/** The JWT access token of `record`: synchronous when nothing needs a promise. */
function signAccessToken(deps: IssuerDeps, req: IssueRequest, record: AccessTokenRecord): string | Promise<string> {
  const claims = accessTokenClaimsOf(deps, req, record);
  if (claims instanceof Promise) return claims.then((final) => deps.signer.signJwt(req.instanceId, final, JWT_TYP));
  return deps.signer.signJwtNow(req.instanceId, claims, JWT_TYP.typ);
}

/** The JWT access token payload (reference facts §5.1 "JWT access token"). */
export function accessTokenClaims(issuer: string, record: AccessTokenRecord): Record<string, unknown> {
  const claims: Record<string, unknown> = {
    iss: issuer,
    sub: record.sub,
    aud: record.aud,
    exp: record.exp,
    iat: record.iat,
    nbf: record.iat,
    jti: record.jti,
    client_id: record.clientId,
    scope: record.scope.join(' '),
  };
  // Assigned, not spread from a fresh {}: no throwaway object per token (same key order).
  if (record.sid !== undefined) claims.sid = record.sid;
  if (record.act !== undefined) claims.act = record.act;
  return claims;
}

/** An ID token for `req.idToken` (OIDC Core §2), issued at `iat` (epoch seconds). */
export async function signIdToken(deps: Pick<IssuerDeps, 'signer' | 'lifetimes' | 'claimHooks'>, req: IssueRequest, iat: number): Promise<string> {
  const id = req.idToken;
  if (id === undefined) throw new Error('signIdToken needs req.idToken');
  // One ID-token builder for every flow (id-token.ts); this maps an issuance onto it.
  return buildIdToken(deps.signer, {
    instanceId: req.instanceId,
    issuer: req.issuer,
    now: iat * 1000,
    lifetimeMs: deps.lifetimes.idMs,
    subject: id.subject,
    sub: req.sub,
    aud: id.aud,
    clientId: req.clientId,
    authTime: (req.authTime ?? iat) * 1000,
    ...(req.amr === undefined ? {} : { amr: req.amr }),
    ...(req.sid === undefined ? {} : { sessionId: req.sid }),
    ...(req.act === undefined ? {} : { act: req.act }),
    ...(id.withUserinfo ? { userinfoScopes: req.scope } : {}),
    ...(id.roleClaims === undefined ? {} : { roleClaims: id.roleClaims }),
    ...(deps.claimHooks === undefined ? {} : { claimHooks: deps.claimHooks }),
  });
}

/** The claims after the function's executions (unchanged, without a promise, when there are none). */
function hooked(deps: Pick<IssuerDeps, 'claimHooks'>, name: 'preaccesstoken' | 'preuserinfo', req: IssueRequest, claims: Claims): Claims | Promise<Claims> {
  if (deps.claimHooks === undefined) return claims;
  return deps.claimHooks.apply(name, { instanceId: req.instanceId, clientId: req.clientId, subject: req.idToken?.subject ?? req.sub }, claims);
}
