/**
 * Passkey assertions are bound to the relying party (issue 14): an assertion made for another
 * RP ID or signed in a page of another origin is refused by verifyAssertion, beside the same
 * kind of assertion made for the right RP ID and origin, which is accepted (the control).
 *
 * The authenticator is a software one written here with node:crypto (a P-256 key, the COSE
 * public key, authenticator data and a real ECDSA signature over it and the client data hash),
 * so the RP ID hash and the client data's origin can be chosen; verification runs through
 * @simplewebauthn/server as in the login UI (src/login/passkey.ts).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authenticationResponseSchema, challengeDigest, newChallenge, verifyAssertion, type AuthenticationResponse, type StoredCredential } from '../../src/crypto/webauthn.js';

const RP = { rpId: 'login.example.com', origin: 'https://login.example.com' };

interface Authenticator {
  readonly privateKey: KeyObject;
  readonly credential: StoredCredential;
}

/** A P-256 credential: the COSE EC2 key (kty 2, alg -7 ES256, crv 1 P-256, x, y) as stored at registration. */
function newAuthenticator(): Authenticator {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  // CBOR map(5): 1:2, 3:-7, -1:1, -2:bytes(32) x, -3:bytes(32) y.
  const cose = Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
  return {
    privateKey,
    credential: { credentialId: randomBytes(16).toString('base64url'), publicKey: cose.toString('base64url'), counter: 0, transports: ['internal'] },
  };
}

/** An assertion as the browser would post it: for `rpId` (its SHA-256 in the authenticator data), from a page of `origin`. */
function assert(authenticator: Authenticator, challenge: string, at: { readonly rpId: string; readonly origin: string }, counter: number): AuthenticationResponse {
  const flags = 0x01 | 0x04; // user present, user verified
  const counterBytes = Buffer.alloc(4);
  counterBytes.writeUInt32BE(counter);
  const authenticatorData = Buffer.concat([createHash('sha256').update(at.rpId).digest(), Buffer.from([flags]), counterBytes]);
  const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: at.origin, crossOrigin: false }));
  const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), authenticator.privateKey);
  const id = authenticator.credential.credentialId;
  return {
    id,
    rawId: id,
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: clientDataJSON.toString('base64url'),
      authenticatorData: authenticatorData.toString('base64url'),
      signature: signature.toString('base64url'),
    },
  };
}

describe('verifyAssertion binds a passkey to the RP ID and origin', () => {
  it('refuses an assertion made for another RP ID (control: the same authenticator for the right RP ID is accepted)', async () => {
    const authenticator = newAuthenticator();
    const challenge = newChallenge();
    const expected = { ...RP, challengeDigest: challengeDigest(challenge) };

    const other = await verifyAssertion(assert(authenticator, challenge, { rpId: 'evil.example.net', origin: RP.origin }, 1), authenticator.credential, expected);
    expect(other).toMatchObject({ ok: false, reason: expect.stringContaining('RP ID') });
    // A parent domain of the RP ID is another RP ID too.
    const parent = await verifyAssertion(assert(authenticator, challenge, { rpId: 'example.com', origin: RP.origin }, 1), authenticator.credential, expected);
    expect(parent).toMatchObject({ ok: false, reason: expect.stringContaining('RP ID') });

    const right = await verifyAssertion(assert(authenticator, challenge, RP, 1), authenticator.credential, expected);
    expect(right).toMatchObject({ ok: true, counter: 1, userVerified: true });
  });

  it('refuses an assertion signed in a page of another origin (control: the issuer origin is accepted)', async () => {
    const authenticator = newAuthenticator();
    const challenge = newChallenge();
    const expected = { ...RP, challengeDigest: challengeDigest(challenge) };

    for (const origin of ['https://evil.example.net', 'http://login.example.com', 'https://login.example.com:8443', 'https://sub.login.example.com']) {
      const result = await verifyAssertion(assert(authenticator, challenge, { rpId: RP.rpId, origin }, 1), authenticator.credential, expected);
      expect(result, origin).toMatchObject({ ok: false, reason: expect.stringContaining('origin') });
    }

    const right = await verifyAssertion(assert(authenticator, challenge, RP, 1), authenticator.credential, expected);
    expect(right).toMatchObject({ ok: true, counter: 1, userVerified: true });
  });

  it('refuses the right RP and origin with another challenge or another key (control: the right ones)', async () => {
    const authenticator = newAuthenticator();
    const challenge = newChallenge();
    const expected = { ...RP, challengeDigest: challengeDigest(challenge) };

    expect((await verifyAssertion(assert(authenticator, newChallenge(), RP, 1), authenticator.credential, expected)).ok).toBe(false);
    const impostor = newAuthenticator();
    const forged = assert({ privateKey: impostor.privateKey, credential: authenticator.credential }, challenge, RP, 1);
    expect((await verifyAssertion(forged, authenticator.credential, expected)).ok).toBe(false);

    expect((await verifyAssertion(assert(authenticator, challenge, RP, 1), authenticator.credential, expected)).ok).toBe(true);
  });
});

describe('authenticationResponseSchema', () => {
  const response = (signatureLength: number) => ({
    id: 'AAAA',
    rawId: 'AAAA',
    type: 'public-key',
    response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'A'.repeat(signatureLength) },
  });

  it('takes the signature of a post-quantum passkey (ML-DSA-87: 6,170 characters), refuses a longer one than 8,000 naming the field', () => {
    // Chromium on Node 24 registers ML-DSA when the options offer it; its assertions must parse.
    expect(authenticationResponseSchema.safeParse(response(6170)).success).toBe(true);
    const tooLong = authenticationResponseSchema.safeParse(response(8001));
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]?.path).toEqual(['response', 'signature']);
  });
});
