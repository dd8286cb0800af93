/**
 * private_key_jwt client assertions (RFC 7523 §3, OIDC Core §9): RS256 signed by one of the
 * app's registered keys, iss = sub = client id, aud = the issuer or the endpoint URL, exp
 * required, iat at most 1 h old, jti single use until exp. The app's clock skew is tolerated.
 */
import { createPublicKey } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { ClientApp } from '../../query/app-clients.js';
import { appPublicKeys } from '../../query/app-clients.js';
import type { ClientAuthContext } from './client-auth.js';
import { invalidClient } from './form.js';
import { useJtiOnce } from './replay.js';

const MAX_IAT_AGE_SEC = 3600;

export async function verifyClientAssertion(assertion: string, client: ClientApp, ctx: ClientAuthContext): Promise<JWTPayload> {
  const app = client.app.state;
  const kid = safeKid(assertion);
  const jwk = appPublicKeys(app, ctx.now).find((key) => key.kid === kid);
  if (jwk === undefined) throw invalidClient('no registered key matches the assertion');
  const skewSec = app.config.type === 'oidc' ? app.config.oidc.clockSkewMs / 1000 : 0;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createPublicKey({ key: { ...jwk }, format: 'jwk' }), {
      algorithms: ['RS256'],
      issuer: app.clientId,
      subject: app.clientId,
      audience: [ctx.issuer, ctx.endpointUrl],
      requiredClaims: ['exp', 'iat', 'jti'],
      maxTokenAge: MAX_IAT_AGE_SEC,
      clockTolerance: Math.max(1, skewSec),
      currentDate: new Date(ctx.now),
    }));
  } catch {
    throw invalidClient('the client assertion is invalid');
  }
  const fresh = await useJtiOnce(ctx.ttl, ctx.instanceId, `client:${app.clientId}`, String(payload.jti), (payload.exp ?? 0) * 1000 + 1000);
  if (!fresh) throw invalidClient('the client assertion was already used');
  return payload;
}

function safeKid(assertion: string): string | undefined {
  try {
    return decodeProtectedHeader(assertion).kid;
  } catch {
    return undefined;
  }
}
