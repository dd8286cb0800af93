/**
 * One instance's key ring, imported once per ring version: the active private key as a
 * node:crypto KeyObject with its pre-encoded JWS headers, the published public keys by `kid`,
 * and the serialized JWKS (RFC 7517 §5) with its ETag. Nothing here is done per request.
 *
 * A cold instance's first token imports its ring, so the import does only what signing needs
 * (issue 13): the public keys and the JWKS body are built on their first use (a verification,
 * a JWKS request), and the unsealed PKCS#8 of a P-256 or Ed25519 key is handed to node:crypto
 * as a JWK — OpenSSL 3 decodes a PKCS#8 PEM several times slower than it builds the same key
 * from its JWK members (see `privateKeyFromPkcs8`).
 */
import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
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
  /** What node:crypto's sign() takes for this key (ES256: IEEE P1363 signatures), built once. */
  readonly signWith: KeyObject | { readonly key: KeyObject; readonly dsaEncoding: 'ieee-p1363' };
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
  /** A published key by `kid` (imported on its first use), or undefined. */
  verifyingKey(kid: string): VerifyingKey | undefined;
  /** The JWKS body and ETag (built on first use, then the same object). */
  readonly published: PublishedKeySet;
}

const STATE_ORDER = { active: 0, next: 1, retired: 2 } as const satisfies Record<WebKeyState, number>;

/** Imports a snapshot: opens only the active private key; the others never leave their seal. */
export function importKeyRing(snapshot: WebKeySnapshot, sealer: SecretSealer): KeyRing {
  const keys = [...snapshot.keys].sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state]);
  const active = keys.find((key) => key.state === 'active');
  const verifying = new Map<string, VerifyingKey>();
  let published: PublishedKeySet | undefined;
  return {
    version: snapshot.version,
    active: active === undefined ? undefined : toSigningKey(active, sealer),
    verifyingKey(kid) {
      let key = verifying.get(kid);
      if (key === undefined) {
        const stored = keys.find((candidate) => candidate.kid === kid);
        if (stored === undefined) return undefined;
        key = { algorithm: stored.algorithm, publicKey: createPublicKey({ key: { ...stored.publicJwk }, format: 'jwk' }) };
        verifying.set(kid, key);
      }
      return key;
    },
    get published() {
      published ??= toPublishedKeySet(keys);
      return published;
    },
  };
}

function toSigningKey(key: StoredWebKey, sealer: SecretSealer): SigningKey {
  const privateKey = privateKeyFromPkcs8(sealer.open(key.sealedPrivateKey), key.publicJwk);
  const signWith = key.algorithm === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey;
  return { kid: key.kid, algorithm: key.algorithm, privateKey, headers: new Map(), signWith };
}

/**
 * The private KeyObject of an unsealed PKCS#8 PEM. For P-256 and Ed25519 keys the private
 * scalar / seed is read out of the DER and imported as a JWK with the stored public members
 * (x, y) — the same key, built without OpenSSL's PKCS#8 decoder; anything else (RSA, another
 * curve, a layout this reader does not know) goes through createPrivateKey(pem) as before.
 */
export function privateKeyFromPkcs8(pem: string, publicJwk: PublicJwk): KeyObject {
  const jwk = privateJwkOf(pem, publicJwk);
  return jwk === undefined ? createPrivateKey(pem) : createPrivateKey({ key: jwk, format: 'jwk' });
}

const PEM_PKCS8 = /^-----BEGIN PRIVATE KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PRIVATE KEY-----\s*$/;
/** DER of the OIDs 1.2.840.10045.2.1 (id-ecPublicKey), 1.2.840.10045.3.1.7 (P-256), 1.3.101.112 (Ed25519). */
const OID_EC_PUBLIC_KEY = Buffer.from('06072a8648ce3d0201', 'hex');
const OID_P256 = Buffer.from('06082a8648ce3d030107', 'hex');
const OID_ED25519 = Buffer.from('06032b6570', 'hex');

function privateJwkOf(pem: string, publicJwk: PublicJwk): JsonWebKey | undefined {
  const body = PEM_PKCS8.exec(pem)?.[1];
  if (body === undefined) return undefined;
  const der = Buffer.from(body.replace(/\s/g, ''), 'base64');
  // PrivateKeyInfo ::= SEQUENCE { version INTEGER, algorithm AlgorithmIdentifier, privateKey OCTET STRING, ... } (RFC 5208 §5)
  const info = readTlv(der, 0, 0x30);
  if (info === undefined || info.end !== der.length) return undefined;
  const version = readTlv(der, info.start, 0x02);
  const algorithm = version === undefined ? undefined : readTlv(der, version.end, 0x30);
  const privateKey = algorithm === undefined ? undefined : readTlv(der, algorithm.end, 0x04);
  if (privateKey === undefined) return undefined;
  const algorithmId = der.subarray(algorithm!.start, algorithm!.end);
  if (algorithmId.equals(Buffer.concat([OID_EC_PUBLIC_KEY, OID_P256]))) {
    // ECPrivateKey ::= SEQUENCE { version INTEGER (1), privateKey OCTET STRING, ... } (RFC 5915 §3)
    const ecKey = readTlv(der, privateKey.start, 0x30);
    const ecVersion = ecKey === undefined ? undefined : readTlv(der, ecKey.start, 0x02);
    const d = ecVersion === undefined ? undefined : readTlv(der, ecVersion.end, 0x04);
    if (d === undefined || d.end - d.start !== 32 || publicJwk.kty !== 'EC' || publicJwk.crv !== 'P-256' || publicJwk.x === undefined || publicJwk.y === undefined) return undefined;
    return { kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y, d: der.subarray(d.start, d.end).toString('base64url') };
  }
  if (algorithmId.equals(OID_ED25519)) {
    // CurvePrivateKey ::= OCTET STRING (RFC 8410 §7): the 32-byte seed inside the privateKey octets.
    const seed = readTlv(der, privateKey.start, 0x04);
    if (seed === undefined || seed.end !== privateKey.end || seed.end - seed.start !== 32 || publicJwk.kty !== 'OKP' || publicJwk.crv !== 'Ed25519' || publicJwk.x === undefined) return undefined;
    return { kty: 'OKP', crv: 'Ed25519', x: publicJwk.x, d: der.subarray(seed.start, seed.end).toString('base64url') };
  }
  return undefined;
}

/** One DER element of `tag` at `offset`: where its contents start and end; undefined when it is not there. */
function readTlv(der: Buffer, offset: number, tag: number): { start: number; end: number } | undefined {
  if (offset + 2 > der.length || der[offset] !== tag) return undefined;
  let length = der[offset + 1]!;
  let start = offset + 2;
  if (length >= 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 2 || start + bytes > der.length) return undefined;
    length = 0;
    for (let i = 0; i < bytes; i++) length = (length << 8) | der[start + i]!;
    start += bytes;
  }
  const end = start + length;
  return end > der.length ? undefined : { start, end };
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
