/**
 * Verifies the subject and actor tokens of a token exchange (RFC 8693 §2.1, reference facts
 * §5.3): access tokens as at introspection; ID tokens we signed (an expired one is accepted, as
 * for id_token_hint); `jwt` subjects signed by one of the calling app's keys with the issuer
 * in `aud`; `user_id` subjects naming an existing user. Any problem → invalid_request.
 */
import { createPublicKey } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { OAuthError } from '../../../actors/index.js';
import { appPublicKeys } from '../../query/app-clients.js';
import { resolveAccessToken } from './access-token.js';
import type { AuthenticatedClient } from './client-auth.js';
import type { OAuthDeps, OAuthRequest } from './oauth-deps.js';
import { accessTokenContext } from './oauth-deps.js';
import type { ActorClaim } from './token-store.js';

export const TOKEN_TYPE = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  refreshToken: 'urn:ietf:params:oauth:token-type:refresh_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  userId: 'urn:platform:params:oauth:token-type:user_id',
} as const satisfies Record<string, string>;

/** What a verified subject or actor token says. */
export interface ExchangedToken {
  readonly sub: string;
  readonly aud: readonly string[];
  readonly scope: readonly string[];
  readonly act?: ActorClaim;
  readonly authTime?: number;
  readonly amr?: readonly string[];
}

const TEN_YEARS_SEC = 10 * 365 * 86_400;

function invalid(message: string): OAuthError {
  return new OAuthError('invalid_request', message, { redirectable: false });
}

export async function verifySubjectToken(deps: OAuthDeps, request: OAuthRequest, client: AuthenticatedClient, token: string, type: string): Promise<ExchangedToken> {
  switch (type) {
    case TOKEN_TYPE.accessToken:
      return verifyAccessToken(deps, request, token);
    case TOKEN_TYPE.idToken:
      return verifyIdToken(deps, request, token);
    case TOKEN_TYPE.jwt:
      return verifyClientSignedJwt(request, client, token);
    case TOKEN_TYPE.userId:
      return { sub: token, aud: [], scope: [] };
    default:
      throw invalid('subject_token_type is not supported');
  }
}

export async function verifyActorToken(deps: OAuthDeps, request: OAuthRequest, token: string, type: string): Promise<ExchangedToken> {
  if (type === TOKEN_TYPE.accessToken) return verifyAccessToken(deps, request, token);
  if (type === TOKEN_TYPE.idToken) return verifyIdToken(deps, request, token);
  throw invalid('actor_token_type is not supported');
}

async function verifyAccessToken(deps: OAuthDeps, request: OAuthRequest, token: string): Promise<ExchangedToken> {
  const record = await resolveAccessToken(accessTokenContext(deps, request), token);
  if (record === undefined) throw invalid('the token is invalid, expired or revoked');
  return {
    sub: record.sub,
    aud: record.aud,
    scope: record.scope,
    ...(record.act === undefined ? {} : { act: record.act }),
    ...(record.authTime === undefined ? {} : { authTime: record.authTime }),
    ...(record.amr === undefined ? {} : { amr: record.amr }),
  };
}

async function verifyIdToken(deps: OAuthDeps, request: OAuthRequest, token: string): Promise<ExchangedToken> {
  let payload: Readonly<Record<string, unknown>>;
  try {
    ({ payload } = await deps.signer.verifyJwt(request.instance.id, token, { issuer: request.issuer, clockToleranceSec: TEN_YEARS_SEC, now: request.now }));
  } catch {
    throw invalid('the ID token is invalid');
  }
  if (typeof payload.sub !== 'string' || payload.scope !== undefined) throw invalid('the token is not an ID token');
  const aud = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.filter((v): v is string => typeof v === 'string') : [];
  const amr = Array.isArray(payload.amr) ? payload.amr.filter((v): v is string => typeof v === 'string') : undefined;
  return {
    sub: payload.sub,
    aud,
    scope: [],
    ...(typeof payload.auth_time === 'number' ? { authTime: payload.auth_time } : {}),
    ...(amr === undefined ? {} : { amr }),
    ...(isActor(payload.act) ? { act: payload.act } : {}),
  };
}

async function verifyClientSignedJwt(request: OAuthRequest, client: AuthenticatedClient, token: string): Promise<ExchangedToken> {
  if (client.kind !== 'app') throw invalid('jwt subject tokens need an application with keys');
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw invalid('the subject token is malformed');
  }
  const jwk = appPublicKeys(client.app.app.state, request.now).find((k) => k.kid === kid);
  if (jwk === undefined) throw invalid('no key of the client matches the subject token');
  try {
    const { payload } = await jwtVerify(token, createPublicKey({ key: { ...jwk }, format: 'jwk' }), {
      algorithms: ['RS256'],
      audience: request.issuer,
      requiredClaims: ['exp', 'sub'],
      clockTolerance: 1,
      currentDate: new Date(request.now),
    });
    return { sub: String(payload.sub), aud: [], scope: [] };
  } catch {
    throw invalid('the subject token is invalid');
  }
}

function isActor(value: unknown): value is ActorClaim {
  return typeof value === 'object' && value !== null && typeof (value as { sub?: unknown }).sub === 'string';
}
