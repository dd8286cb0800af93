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
  /**
   * The same without a promise when none is needed: the compact JWS itself when the ring is held
   * and the key signs synchronously (ES256, EdDSA), else a promise (a ring to load, RS256). May
   * throw instead of rejecting. For the token hot path; everything else uses `signJwt`.
   */
  signJwtNow(instanceId: string, payload: object, typ: string): string | Promise<string>;
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
  const signActive = (ring: KeyRing, typ: string, payload: object): string | Promise<string> => {
    const key = ring.active;
    if (key === undefined) throw failedPrecondition('web_key.no_active_key', 'the instance has no active signing key');
    return signCompact(key, typ, payload);
  };
  return {
    async signJwt(instanceId, payload, signOptions = {}) {
      return signActive(await cache.get(instanceId), signOptions.typ ?? 'JWT', payload);
    },
    signJwtNow(instanceId, payload, typ) {
      const ring = cache.get(instanceId);
      return ring instanceof Promise ? ring.then((held) => signActive(held, typ, payload)) : signActive(ring, typ, payload);
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

/**
 * Where a synchronous signature's input is put together: the header, `.` and the payload are
 * written into it and signed from there, so the signing input is never one more flat string
 * (the token is `header.payload.signature` as a rope, flattened once when the reply is written).
 * Never for RS256, which reads its input later on the threadpool.
 */
const SIGNING_INPUT = Buffer.allocUnsafeSlow(8192);
/** The payload's JSON as UTF-8, before base64url (at most 3 bytes per UTF-16 unit). */
const PAYLOAD_UTF8 = Buffer.allocUnsafeSlow(8192);
const DOT = 0x2e;

/** base64url of the payload's JSON. */
function encodedPayload(payload: object): string {
  const json = JSON.stringify(payload);
  if (json.length * 3 > PAYLOAD_UTF8.length) return Buffer.from(json).toString('base64url');
  return PAYLOAD_UTF8.toString('base64url', 0, PAYLOAD_UTF8.write(json, 0, 'utf8'));
}

/** header.payload.signature, built by hand: this is the hot path of every token response. */
function signCompact(key: SigningKey, typ: string, payload: object): string | Promise<string> {
  const header = encodedHeader(key, typ);
  const body = encodedPayload(payload);
  const length = header.length + 1 + body.length;
  if (key.algorithm !== 'RS256' && length <= SIGNING_INPUT.length) {
    // base64url is ASCII: one byte per character.
    SIGNING_INPUT.write(header, 0, 'latin1');
    SIGNING_INPUT[header.length] = DOT;
    SIGNING_INPUT.write(body, header.length + 1, 'latin1');
    const data = SIGNING_INPUT.subarray(0, length);
    const signature = key.algorithm === 'ES256' ? sign('sha256', data, key.signWith) : sign(null, data, key.privateKey);
    return `${header}.${body}.${signature.toString('base64url')}`;
  }
  const signingInput = `${header}.${body}`;
  const data = Buffer.from(signingInput, 'latin1'); // base64url is ASCII
  switch (key.algorithm) {
    case 'ES256':
      return `${signingInput}.${sign('sha256', data, key.signWith).toString('base64url')}`;
    case 'EdDSA':
      return `${signingInput}.${sign(null, data, key.privateKey).toString('base64url')}`;
    case 'RS256':
      return new Promise((resolve, reject) => {
        sign('sha256', data, key.privateKey, (error, signature) => {
          if (error !== null) reject(error);
          else resolve(`${signingInput}.${signature.toString('base64url')}`);
        });
      });
  }
}
