/**
 * JWT profile grant (RFC 7523 §2.1, reference facts §5.4): a service user signs an assertion
 * with one of its machine keys (`kid` = key id): iss = sub = user id, aud contains the issuer,
 * exp required, iat not in the future and at most 1 h old, jti single use. Every failure is
 * invalid_grant. Access token per the user's setting, an ID token with `openid`, no refresh.
 */
import { createPublicKey } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { type AggregateRecord, type MachineUser, OAuthError, orgKind, userKind } from '../../../actors/index.js';
import { requireParam } from '../shared/form.js';
import type { OAuthDeps, OAuthRequest } from '../shared/oauth-deps.js';
import { useJtiOnce } from '../shared/replay.js';
import { grantScopes, parseScopeParam } from '../shared/scopes.js';
import { issueTokens } from '../shared/token-issuer.js';
import { type TokenResponse, toTokenResponse } from './token-response.js';

const MAX_IAT_AGE_SEC = 3600;

export async function grantJwtBearer(deps: OAuthDeps, request: OAuthRequest): Promise<TokenResponse> {
  const assertion = requireParam(request.params, 'assertion');
  const requested = parseScopeParam(requireParam(request.params, 'scope'));
  const user = await verifyAssertion(deps, request, assertion);
  const org = await deps.actors.readRecord(request.instance.id, orgKind, user.state.orgId);
  const granted = grantScopes(requested, { orgId: user.state.orgId, orgPrimaryDomain: org?.state.primaryDomain ?? '', projectRoles: [] });
  const aud = [...granted.projectAudience, user.id];
  const issued = await issueTokens(deps, {
    instanceId: request.instance.id,
    issuer: request.issuer,
    clientId: user.id,
    sub: user.id,
    aud,
    scope: granted.scopes,
    accessTokenFormat: user.state.accessTokenType === 'jwt' ? 'jwt' : 'opaque',
    now: request.now,
    authTime: Math.floor(request.now / 1000),
    ...(granted.scopes.includes('openid') ? { idToken: { subject: { user, org }, aud, withUserinfo: false } } : {}),
  });
  return toTokenResponse(issued);
}

function invalidGrant(message: string): OAuthError {
  return new OAuthError('invalid_grant', message, { redirectable: false });
}

/** The active machine user whose unexpired key signed the assertion; else invalid_grant. */
async function verifyAssertion(deps: OAuthDeps, request: OAuthRequest, assertion: string): Promise<AggregateRecord<MachineUser>> {
  const { kid, sub } = peek(assertion);
  const user = sub === undefined || sub.length > 64 ? undefined : await deps.actors.readRecord(request.instance.id, userKind, sub);
  if (user === undefined || user.state.type !== 'machine' || user.state.state !== 'active') throw invalidGrant('the assertion names no active service user');
  const key = user.state.keys.find((k) => k.id === kid && k.expiresAt > request.now);
  if (key === undefined) throw invalidGrant('no valid key of the service user matches the assertion');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createPublicKey(key.publicKey), {
      algorithms: ['RS256'],
      issuer: user.id,
      subject: user.id,
      audience: request.issuer,
      requiredClaims: ['exp', 'iat'],
      maxTokenAge: MAX_IAT_AGE_SEC,
      clockTolerance: 1,
      currentDate: new Date(request.now),
    }));
  } catch {
    throw invalidGrant('the assertion is invalid');
  }
  if (typeof payload.jti === 'string') {
    const fresh = await useJtiOnce(deps.actors.ttl, request.instance.id, `user:${user.id}`, payload.jti, (payload.exp ?? 0) * 1000 + 1000);
    if (!fresh) throw invalidGrant('the assertion was already used');
  }
  return user as AggregateRecord<MachineUser>;
}

function peek(assertion: string): { kid: string | undefined; sub: string | undefined } {
  try {
    const sub = decodeJwt(assertion).sub;
    return { kid: decodeProtectedHeader(assertion).kid, sub: typeof sub === 'string' ? sub : undefined };
  } catch {
    throw invalidGrant('the assertion is malformed');
  }
}
