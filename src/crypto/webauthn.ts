/**
 * WebAuthn (passkeys) through @simplewebauthn/server: creation and request options, and the
 * verification of an attestation (registration) or an assertion (login). Challenges are 32
 * random bytes; callers keep only their SHA-256 digest (single use, in the TTL store) and
 * verification compares digests. RP ID is the instance domain the browser talks to, origin the
 * issuer origin; user verification is required (a passkey counts as two factors).
 */
import { createHash } from 'node:crypto';
import type { AuthenticatorTransport, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { lazyModule } from '../runtime/lazy-module.js';
import { randomSecret } from './random.js';

/**
 * @simplewebauthn/server (with its ASN.1 and X.509 stack) is loaded with the first passkey
 * ceremony: a node whose users never touch a passkey keeps ~4 MB of heap and ~20 MB of resident
 * memory less (#13). Every caller below is already asynchronous; no hot path calls them.
 */
const webauthn = lazyModule(() => import('@simplewebauthn/server'));

/** How long a registration or login challenge is accepted. */
export const WEBAUTHN_CHALLENGE_TTL_MS = 5 * 60_000;

const B64URL = /^[A-Za-z0-9_-]*$/;
const b64url = (max: number) => z.string().min(1, 'required').max(max, `must be at most ${max} characters`).regex(B64URL, 'must be base64url');
const TRANSPORTS = ['ble', 'hybrid', 'internal', 'nfc', 'usb'] as const;

/** RegistrationResponseJSON (PublicKeyCredential.toJSON() of navigator.credentials.create). */
export const registrationResponseSchema = z.object(
  {
    id: b64url(1400),
    rawId: b64url(1400),
    type: z.literal('public-key', 'must be "public-key"'),
    response: z.object(
      {
        clientDataJSON: b64url(4000),
        attestationObject: b64url(32_000),
        transports: z.array(z.string().max(32, 'must be at most 32 characters'), 'must be a list of transports').max(10, 'at most 10').optional(),
      },
      'required',
    ),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  },
  'required',
);

/** AuthenticationResponseJSON (PublicKeyCredential.toJSON() of navigator.credentials.get). */
export const authenticationResponseSchema = z.object(
  {
    id: b64url(1400),
    rawId: b64url(1400),
    type: z.literal('public-key', 'must be "public-key"'),
    response: z.object(
      {
        clientDataJSON: b64url(4000),
        authenticatorData: b64url(4000),
        // ML-DSA (post-quantum; offered by the library where Node's crypto has it, e.g. Node 24):
        // an ML-DSA-87 signature is 4,627 bytes, 6,170 base64url characters.
        signature: b64url(8000),
        userHandle: b64url(400).optional(),
      },
      'required',
    ),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  },
  'required',
);

export type RegistrationResponse = z.infer<typeof registrationResponseSchema>;
export type AuthenticationResponse = z.infer<typeof authenticationResponseSchema>;

/** Where the browser is: the RP ID (instance domain) and the origin (issuer origin). */
export interface RelyingParty {
  readonly rpId: string;
  readonly origin: string;
}

/** A stored credential, as verification needs it. */
export interface StoredCredential {
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
}

export function newChallenge(): string {
  return randomSecret(32);
}

export function challengeDigest(challenge: string): string {
  return createHash('sha256').update(challenge).digest('base64url');
}

export async function creationOptions(input: {
  readonly rpName: string;
  readonly rpId: string;
  readonly userId: string;
  readonly userName: string;
  readonly userDisplayName: string;
  readonly challenge: string;
  readonly exclude: readonly StoredCredential[];
}): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: input.rpName,
    rpID: input.rpId,
    userID: new TextEncoder().encode(input.userId),
    userName: input.userName,
    userDisplayName: input.userDisplayName,
    challenge: Buffer.from(input.challenge, 'base64url'),
    timeout: WEBAUTHN_CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: input.exclude.map((c) => ({ id: c.credentialId, transports: toTransports(c.transports) })),
    // A discoverable credential (passwordless login without a login name) that verifies the user.
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
}

export async function requestOptions(input: { readonly rpId: string; readonly challenge: string; readonly allow?: readonly StoredCredential[] }): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({
    rpID: input.rpId,
    challenge: Buffer.from(input.challenge, 'base64url'),
    timeout: WEBAUTHN_CHALLENGE_TTL_MS,
    userVerification: 'required',
    ...(input.allow === undefined ? {} : { allowCredentials: input.allow.map((c) => ({ id: c.credentialId, transports: toTransports(c.transports) })) }),
  });
}

export type Verified<T> = ({ readonly ok: true } & T) | { readonly ok: false; readonly reason: string };

/** Verifies an attestation against the challenge digest, RP ID and origin (user verification required). */
export async function verifyRegistration(
  response: RegistrationResponse,
  expected: RelyingParty & { readonly challengeDigest: string },
): Promise<Verified<{ readonly credential: StoredCredential; readonly userVerified: boolean }>> {
  const { verifyRegistrationResponse } = await webauthn();
  try {
    const result = await verifyRegistrationResponse({
      response: { ...response, response: { ...response.response, ...(response.response.transports === undefined ? {} : { transports: [...response.response.transports] }) } },
      expectedChallenge: (challenge) => challengeDigest(challenge) === expected.challengeDigest,
      expectedOrigin: expected.origin,
      expectedRPID: expected.rpId,
      requireUserVerification: true,
    });
    if (!result.verified) return { ok: false, reason: 'the attestation could not be verified' };
    const { credential, userVerified } = result.registrationInfo;
    return {
      ok: true,
      userVerified,
      credential: {
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: [...(credential.transports ?? response.response.transports ?? [])],
      },
    };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'the attestation could not be verified' };
  }
}

/** Verifies an assertion of `credential` against the challenge digest, RP ID and origin. */
export async function verifyAssertion(
  response: AuthenticationResponse,
  credential: StoredCredential,
  expected: RelyingParty & { readonly challengeDigest: string },
): Promise<Verified<{ readonly counter: number; readonly userVerified: boolean }>> {
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: (challenge) => challengeDigest(challenge) === expected.challengeDigest,
      expectedOrigin: expected.origin,
      expectedRPID: expected.rpId,
      credential: {
        id: credential.credentialId,
        publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')),
        counter: credential.counter,
        transports: toTransports(credential.transports),
      },
      requireUserVerification: true,
    });
    if (!result.verified) return { ok: false, reason: 'the assertion could not be verified' };
    return { ok: true, counter: result.authenticationInfo.newCounter, userVerified: result.authenticationInfo.userVerified };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'the assertion could not be verified' };
  }
}

function toTransports(transports: readonly string[]): AuthenticatorTransport[] {
  return transports.filter((t): t is AuthenticatorTransport => (TRANSPORTS as readonly string[]).includes(t));
}
