/**
 * Signs and verifies an instance's own JWTs (RFC 7515 compact serialization, RFC 7519) with its
 * web keys. The imported ring is held by the instance's state (actors/instance/read-state.ts,
 * `hold`): imported once per ring version, dropped when the change feed, the worker feed or this
 * node's own append reports the ring's stream at a newer version, and with the instance when it
 * passivates. ES256 / EdDSA sign synchronously, RS256 on the libuv threadpool so the event loop keeps
 * serving while RSA works. ES256 signatures use the JWS form (IEEE P1363, RFC 7518 §3.4).
 */
import { sign } from 'node:crypto';
import { failedPrecondition, unauthenticated, webKeysKind, type Clock, type Held, type InstanceStates, type SecretSealer } from '../../actors/index.js';
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
  /** Where each instance's ring is held (the actor system's instance states). */
  readonly states: InstanceStates;
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
  /** The same when the ring is held already (no await); undefined while it loads (a load is started). */
  heldPublishedKeys?(instanceId: string): PublishedKeySet | undefined;
}

const ignore = (): void => {};

/** The key under which an instance's state holds its imported ring, and the streams it is read from. */
const RING = 'signing keys';
const RING_TYPES = [webKeysKind.type];

export function createSigner(options: SignerOptions): Signer {
  const { states, sealer } = options;
  const load = async (instanceId: string): Promise<Held<KeyRing>> => {
    const snapshot = await options.source.snapshot(instanceId);
    if (snapshot === undefined) throw failedPrecondition('web_key.not_initialized', 'the instance has no signing keys');
    return { value: importKeyRing(snapshot, sealer), streams: [{ aggregateType: webKeysKind.type, aggregateId: instanceId, version: snapshot.version }] };
  };
  const cache = { get: (instanceId: string): KeyRing | Promise<KeyRing> => states.instanceState(instanceId).hold(RING, RING_TYPES, load) };
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
    heldPublishedKeys(instanceId) {
      const ring = cache.get(instanceId);
      if (!(ring instanceof Promise)) return ring.published;
      ring.catch(ignore); // the handler's path awaits the same load and answers its failure
      return undefined;
    },
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
