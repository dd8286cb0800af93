/**
 * Signs and verifies an instance's own JWTs (RFC 7515 compact serialization, RFC 7519) with its
 * web keys. Keys are imported once per ring version and re-checked at most every `refreshMs`;
 * ES256 / EdDSA sign synchronously, RS256 on the libuv threadpool so the event loop keeps
 * serving while RSA works. ES256 signatures use the JWS form (IEEE P1363, RFC 7518 §3.4).
 */
import { sign } from 'node:crypto';
import { failedPrecondition, unauthenticated, type Clock, type SecretSealer } from '../../actors/index.js';
import { checkClaims, JwsError, verifyCompactJws, type JwsHeader } from './compact-jws.js';
import { encodedHeader, importKeyRing, type KeyRing, type PublishedKeySet, type SigningKey, type WebKeySnapshot } from './key-ring.js';

/** Where the signer reads an instance's key ring from (the store, via the web-key service). */
export interface WebKeySource {
  /** The ring, creating the instance's first keys when it has none; undefined for an unknown instance. */
  snapshot(instanceId: string): Promise<WebKeySnapshot | undefined>;
}

export interface SignerOptions {
  readonly source: WebKeySource;
  readonly sealer: SecretSealer;
  readonly clock: Clock;
  /** How long a loaded ring is used before its version is checked again (default 1 s). */
  readonly refreshMs?: number;
  /** Instances whose rings are kept in memory (default 10,000; the oldest is dropped beyond). */
  readonly maxInstances?: number;
}

export interface VerifiedJwt {
  readonly payload: Readonly<Record<string, unknown>>;
  readonly protectedHeader: JwsHeader;
}

export interface VerifyJwtOptions {
  /** Required `iss`; undefined skips the check. */
  readonly issuer?: string;
  /** Epoch ms the time claims are checked against (default: the signer's clock). */
  readonly now?: number;
  /** Leeway in seconds on exp / nbf (hints: an expired ID token still names its user). */
  readonly clockToleranceSec?: number;
  readonly requiredClaims?: readonly string[];
}

export interface Signer {
  /** A compact JWS of `payload` signed by the instance's active key; header `{alg, kid, typ}`. */
  signJwt(instanceId: string, payload: object, options?: { readonly typ?: string }): Promise<string>;
  /** Verifies one of our own tokens against the instance's published keys (kid required). */
  verifyJwt(instanceId: string, token: string, options?: VerifyJwtOptions): Promise<VerifiedJwt>;
  /** The instance's JWKS body and ETag. */
  publishedKeys(instanceId: string): Promise<PublishedKeySet>;
  /** Forgets a ring (after this node changed it), so the next use reads it again. */
  invalidate(instanceId: string): void;
}

interface CacheEntry {
  ring: KeyRing | undefined;
  checkedAt: number;
  pending: Promise<KeyRing> | undefined;
  /** Bumped by invalidate: a read started before it must not store what it read. */
  generation: number;
}

export function createSigner(options: SignerOptions): Signer {
  const cache = createRingCache(options);
  return {
    async signJwt(instanceId, payload, signOptions = {}) {
      const ring = await cache.get(instanceId);
      const key = ring.active;
      if (key === undefined) throw failedPrecondition('web_key.no_active_key', 'the instance has no active signing key');
      return signCompact(key, signOptions.typ ?? 'JWT', payload);
    },
    async verifyJwt(instanceId, token, verifyOptions = {}) {
      const ring = await cache.get(instanceId);
      try {
        const { header, payload } = verifyCompactJws(token, (kid) => ring.verifyingKey(kid));
        checkClaims(payload, { ...verifyOptions, now: verifyOptions.now ?? options.clock.now() });
        return { payload, protectedHeader: header };
      } catch (error) {
        const code = error instanceof JwsError ? error.code : 'unknown';
        throw unauthenticated('token.invalid', 'the token is invalid', { detail: code, cause: error });
      }
    },
    async publishedKeys(instanceId) {
      return (await cache.get(instanceId)).published;
    },
    invalidate: (instanceId) => cache.invalidate(instanceId),
  };
}

/** header.payload.signature, built by hand: this is the hot path of every token response. */
function signCompact(key: SigningKey, typ: string, payload: object): Promise<string> {
  const signingInput = `${encodedHeader(key, typ)}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const data = Buffer.from(signingInput, 'latin1'); // base64url is ASCII
  switch (key.algorithm) {
    case 'ES256':
      return Promise.resolve(`${signingInput}.${sign('sha256', data, key.signWith).toString('base64url')}`);
    case 'EdDSA':
      return Promise.resolve(`${signingInput}.${sign(null, data, key.privateKey).toString('base64url')}`);
    case 'RS256':
      return new Promise((resolve, reject) => {
        sign('sha256', data, key.privateKey, (error, signature) => {
          if (error !== null) reject(error);
          else resolve(`${signingInput}.${signature.toString('base64url')}`);
        });
      });
  }
}

/** Rings by instance: a hit within `refreshMs` is a Map lookup; after that one store read checks the version. */
function createRingCache(options: SignerOptions) {
  const refreshMs = options.refreshMs ?? 1_000;
  const maxInstances = options.maxInstances ?? 10_000;
  const entries = new Map<string, CacheEntry>();

  async function refresh(instanceId: string, entry: CacheEntry): Promise<KeyRing> {
    const generation = entry.generation;
    const current = () => entry.generation === generation;
    try {
      const snapshot = await options.source.snapshot(instanceId);
      if (snapshot === undefined) {
        if (entries.get(instanceId) === entry) entries.delete(instanceId);
        throw failedPrecondition('web_key.not_initialized', 'the instance has no signing keys');
      }
      const ring = entry.ring?.version === snapshot.version ? entry.ring : importKeyRing(snapshot, options.sealer);
      if (current()) {
        entry.ring = ring;
        entry.checkedAt = options.clock.now();
      }
      return ring;
    } finally {
      if (current()) entry.pending = undefined;
    }
  }

  return {
    get(instanceId: string): Promise<KeyRing> | KeyRing {
      let entry = entries.get(instanceId);
      if (entry?.ring !== undefined && options.clock.now() - entry.checkedAt < refreshMs) return entry.ring;
      if (entry === undefined) {
        if (entries.size >= maxInstances) entries.delete(entries.keys().next().value as string); // size checked above
        entry = { ring: undefined, checkedAt: 0, pending: undefined, generation: 0 };
        entries.set(instanceId, entry);
      }
      entry.pending ??= refresh(instanceId, entry);
      return entry.pending;
    },
    invalidate(instanceId: string): void {
      const entry = entries.get(instanceId);
      if (entry === undefined) return;
      entry.checkedAt = Number.NEGATIVE_INFINITY;
      entry.pending = undefined;
      entry.generation += 1;
    },
  };
}
