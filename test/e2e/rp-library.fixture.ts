/**
 * Fixtures of the relying-party library suites: openid-client v6 configurations for a started
 * node (http issuer → allowInsecureRequests; ID token signatures checked against the JWKS with
 * enableNonRepudiationChecks) and key-file helpers turning a Tessera key file into the
 * WebCrypto key the libraries sign client assertions with.
 */
import { createPrivateKey, randomUUID, webcrypto } from 'node:crypto';
import * as oidc from 'openid-client';
import { SignJWT } from 'jose';
import type { TestNode } from './harness.js';
import type { KeyFile } from './oidc.fixture.js';

/** Discovers the node's issuer for a client; every ID token the library sees is signature-checked. */
export function configFor(node: TestNode, clientId: string, auth: oidc.ClientAuth): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(node.baseUrl), clientId, undefined, auth, { execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] });
}

/** The key file's private key as a non-extractable RS256 signing CryptoKey, with its kid. */
export async function privateKeyOf(keyFile: KeyFile): Promise<oidc.PrivateKey> {
  const der = createPrivateKey(keyFile.key).export({ type: 'pkcs8', format: 'der' });
  const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  return { key, kid: keyFile.keyId };
}

/** A JWT profile assertion (RFC 7523) signed with a service user's key file. */
export function jwtProfileAssertion(node: TestNode, userId: string, keyFile: KeyFile): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: randomUUID() })
    .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
    .setIssuer(userId)
    .setSubject(userId)
    .setAudience(node.baseUrl)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(createPrivateKey(keyFile.key));
}

/**
 * The `error` of a library error carrying an OAuth error body (for a 401 with a Basic
 * challenge, the library raises the challenge and the body is read here), else the message.
 */
export async function oauthError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof oidc.ResponseBodyError) return err.error;
    if (err instanceof oidc.WWWAuthenticateChallengeError) return `${err.status} ${err.cause[0]?.scheme ?? ''} ${((await err.response.json()) as { error?: string }).error ?? ''}`;
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected the library call to fail');
}

/** An authorization request the library built (code flow, PKCE S256, state and nonce) and what the code exchange needs of it. */
export interface StartedAuthorization {
  readonly url: URL;
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
}

/** Builds an authorization URL for `openid profile email` with fresh PKCE, state and nonce; `extra` adds or overrides parameters. */
export async function startAuthorization(config: oidc.Configuration, redirectUri: string, extra: Record<string, string> = {}): Promise<StartedAuthorization> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid profile email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url, verifier, state, nonce };
}
