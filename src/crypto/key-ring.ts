/**
 * One instance's key ring, imported once per ring version: the active private key as a
 * node:crypto KeyObject with its pre-encoded JWS headers, every published public key by `kid`,
 * and the serialized JWKS (RFC 7517 §5) with its ETag. Nothing here is done per request.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { PublicJwk, SecretSealer, SigningAlgorithm, WebKeyState } from '../../actors/index.js';

/** A key as the ring stores it: public JWK and the sealed private key. */
export interface StoredWebKey {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  readonly state: WebKeyState;
  readonly publicJwk: PublicJwk;
  readonly sealedPrivateKey: string;
}

/** The ring as read from the store; `version` changes with every change of the ring. */
export interface WebKeySnapshot {
  readonly version: number;
  readonly keys: readonly StoredWebKey[];
}

export interface SigningKey {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  readonly privateKey: KeyObject;
  /** base64url of the JOSE header `{alg, kid, typ}`, by `typ` (built on first use). */
  readonly headers: Map<string, string>;
}

export interface VerifyingKey {
  readonly algorithm: SigningAlgorithm;
  readonly publicKey: KeyObject;
}

/** The published key set as the JWKS endpoint serves it. */
export interface PublishedKeySet {
  readonly body: string;
  /** Strong ETag of `body` (RFC 9110 §8.8.3). */
  readonly etag: string;
}

export interface KeyRing {
  readonly version: number;
  readonly active: SigningKey | undefined;
  readonly verifying: ReadonlyMap<string, VerifyingKey>;
  readonly published: PublishedKeySet;
}

const STATE_ORDER = { active: 0, next: 1, retired: 2 } as const satisfies Record<WebKeyState, number>;

/** Imports a snapshot: opens only the active private key; the others never leave their seal. */
export function importKeyRing(snapshot: WebKeySnapshot, sealer: SecretSealer): KeyRing {
  const keys = [...snapshot.keys].sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state]);
  const verifying = new Map<string, VerifyingKey>();
  for (const key of keys) {
    verifying.set(key.kid, { algorithm: key.algorithm, publicKey: createPublicKey({ key: { ...key.publicJwk }, format: 'jwk' }) });
  }
  const active = keys.find((key) => key.state === 'active');
  return {
    version: snapshot.version,
    active: active === undefined ? undefined : toSigningKey(active, sealer),
    verifying,
    published: toPublishedKeySet(keys),
  };
}

function toSigningKey(key: StoredWebKey, sealer: SecretSealer): SigningKey {
  return { kid: key.kid, algorithm: key.algorithm, privateKey: createPrivateKey(sealer.open(key.sealedPrivateKey)), headers: new Map() };
}

/** JWKS members in a stable order: active first (naive clients take the first key), then next, then retired. */
function toPublishedKeySet(keys: readonly StoredWebKey[]): PublishedKeySet {
  const body = JSON.stringify({ keys: keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.algorithm, use: 'sig' })) });
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}

/** The encoded protected header for `typ`, built once per key and typ. */
export function encodedHeader(key: SigningKey, typ: string): string {
  let header = key.headers.get(typ);
  if (header === undefined) {
    header = Buffer.from(JSON.stringify({ alg: key.algorithm, kid: key.kid, typ })).toString('base64url');
    key.headers.set(typ, header);
  }
  return header;
}
