/**
 * ID tokens of the user flows (OIDC Core §2, §3.1.3.6, §3.2.2.10): iss, sub, aud, exp, iat,
 * auth_time, nonce, amr, azp, client_id, sid, and at_hash (left half of the SHA-256 of the
 * access token) when one is issued with it. Userinfo claims only when asked for (no access
 * token issued, or the app's idTokenUserinfoAssertion); the private claims of the granted
 * `urn:platform:iam:` scopes (e.g. `urn:platform:iam:org:id`) always.
 */
import { createHash } from 'node:crypto';
import type { Signer } from '../../crypto/signer.js';
import type { ClaimHooks } from './claim-hooks.js';
import { scopeClaims, userClaims, type ClaimSubject } from './claims.js';

export interface IdTokenInput {
  readonly instanceId: string;
  readonly issuer: string;
  /** Epoch ms. */
  readonly now: number;
  readonly lifetimeMs: number;
  readonly subject: ClaimSubject;
  /** `sub`; the subject user's id unless the issuance names it. */
  readonly sub?: string;
  readonly aud: readonly string[];
  readonly clientId: string;
  /** Epoch ms of the authentication. */
  readonly authTime: number;
  readonly amr?: readonly string[];
  /** The browser session (`sid`); absent for grants without one (JWT profile, token exchange). */
  readonly sessionId?: string;
  /** The actor of an impersonation (RFC 8693 `act`). */
  readonly act?: unknown;
  readonly nonce?: string;
  readonly accessToken?: string;
  /** Scopes whose userinfo claims go into the token; undefined for none. */
  readonly userinfoScopes?: readonly string[];
  /** The granted scopes: their private claims (org id, resource owner, metadata) always go in. */
  readonly scopes?: readonly string[];
  /** Role claims asserted into the ID token (app option idTokenRoleAssertion). */
  readonly roleClaims?: Readonly<Record<string, unknown>>;
  /** preuserinfo function executions (none when absent). */
  readonly claimHooks?: ClaimHooks;
}

/**
 * `acr` (OIDC Core §2) from what the login checked: two or more factors (`mfa` in `amr`: a
 * password with a TOTP / SMS / email code, or a user-verified passkey) are level 2, one factor
 * level 1. Listed in discovery's `acr_values_supported`.
 */
export const ACR_ONE_FACTOR = 'urn:platform:loa:1fa';
export const ACR_MULTI_FACTOR = 'urn:platform:loa:2fa';

export function acrOf(amr: readonly string[]): string {
  return amr.includes('mfa') ? ACR_MULTI_FACTOR : ACR_ONE_FACTOR;
}

/** `at_hash` of an access token (RS256 / ES256: SHA-256). */
export function accessTokenHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export async function signIdToken(signer: Signer, input: IdTokenInput): Promise<string> {
  const iat = Math.floor(input.now / 1000);
  const payload = {
    ...(input.scopes === undefined ? {} : scopeClaims(input.subject, input.scopes)),
    ...(input.userinfoScopes === undefined ? {} : userClaims(input.subject, input.userinfoScopes)),
    ...input.roleClaims,
    iss: input.issuer,
    sub: input.sub ?? input.subject.user.id,
    aud: input.aud,
    exp: iat + Math.floor(input.lifetimeMs / 1000),
    iat,
    auth_time: Math.floor(input.authTime / 1000),
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
    ...(input.amr === undefined ? {} : { amr: input.amr, acr: acrOf(input.amr) }),
    azp: input.clientId,
    client_id: input.clientId,
    ...(input.accessToken === undefined ? {} : { at_hash: accessTokenHash(input.accessToken) }),
    ...(input.sessionId === undefined ? {} : { sid: input.sessionId }),
    ...(input.act === undefined ? {} : { act: input.act }),
  };
  const claims = input.claimHooks === undefined ? payload : await input.claimHooks.apply('preuserinfo', { instanceId: input.instanceId, clientId: input.clientId, subject: input.subject }, payload);
  return signer.signJwt(input.instanceId, claims, { typ: 'JWT' });
}
