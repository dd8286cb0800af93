/**
 * The signing keys of an instance (design §7, reference facts §5.7): one aggregate per instance
 * holding its key ring. A key is published as `next` before it signs, `active` while it signs
 * (exactly one), then `retired` — still published — until every token it signed has expired.
 * Private keys are stored sealed with the master key; no event holds one in clear.
 */
import { webKeyEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { CommandContext, Outcome } from '../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../kernel/owner.js';
import { emitter, type Emitted } from '../kernel/events.js';

/** JWS algorithms a web key can sign with (RFC 7518 §3.1, RFC 8037 §3.1). */
export type SigningAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

export const SIGNING_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const satisfies readonly SigningAlgorithm[];

/** `next`: published, not yet signing; `active`: signs everything; `retired`: published only. */
export type WebKeyState = 'next' | 'active' | 'retired';

/** The public half of a key as a JWK (RFC 7517): RSA `n`/`e`, EC `crv`/`x`/`y`, OKP `crv`/`x`. */
export interface PublicJwk {
  readonly kty: string;
  readonly crv?: string;
  readonly x?: string;
  readonly y?: string;
  readonly n?: string;
  readonly e?: string;
}

export interface WebKey {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  readonly publicJwk: PublicJwk;
  /** The PKCS#8 PEM private key, sealed with the master key (SecretSealer). */
  readonly sealedPrivateKey: string;
  readonly state: WebKeyState;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly activatedAt?: number;
  readonly retiredAt?: number;
  /** Position and time of the key's last change (its Details). */
  readonly sequence: number;
  readonly changedAt: number;
}

/** The key ring of an instance, oldest key first. */
export interface WebKeyRing {
  readonly keys: readonly WebKey[];
}

/** A key pair generated at the edge; the command seals the private key before recording it. */
export interface NewWebKey {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  readonly publicJwk: PublicJwk;
  /** PKCS#8 PEM; never recorded as given. */
  readonly privateKeyPem: string;
}

export type WebKeyEvent =
  | { type: 'web_key.added'; payload: { kid: string; algorithm: SigningAlgorithm; publicJwk: PublicJwk; privateKey: string } }
  | { type: 'web_key.activated'; payload: { kid: string } }
  | { type: 'web_key.retired'; payload: { kid: string } }
  | { type: 'web_key.removed'; payload: { kid: string } };

function updateKey(ring: WebKeyRing, kid: string, change: (key: WebKey) => WebKey): WebKeyRing {
  return { keys: ring.keys.map((key) => (key.kid === kid ? change(key) : key)) };
}

function evolveRing(ring: WebKeyRing, e: WebKeyEvent, at: { sequence: number; changedAt: number }): WebKeyRing {
  switch (e.type) {
    case 'web_key.added': {
      const { kid, algorithm, publicJwk, privateKey } = e.payload;
      const key: WebKey = { kid, algorithm, publicJwk, sealedPrivateKey: privateKey, state: 'next', createdAt: at.changedAt, ...at };
      return { keys: [...ring.keys, key] };
    }
    case 'web_key.activated':
      return updateKey(ring, e.payload.kid, (key) => ({ ...key, state: 'active', activatedAt: at.changedAt, ...at }));
    case 'web_key.retired':
      return updateKey(ring, e.payload.kid, (key) => ({ ...key, state: 'retired', retiredAt: at.changedAt, ...at }));
    case 'web_key.removed':
      return { keys: ring.keys.filter((key) => key.kid !== e.payload.kid) };
    default:
      return ring;
  }
}

export const webKeysKind: AggregateKind<WebKeyRing, WebKeyEvent, 'web_keys'> = {
  type: 'web_keys',
  table: 'web_keys',
  events: webKeyEvents,
  evolve(state, e) {
    return evolveRing(state ?? { keys: [] }, e, { sequence: e.position, changedAt: e.createdAt });
  },
};

/** The key that signs, if any. */
export function activeWebKey(ring: WebKeyRing | undefined): WebKey | undefined {
  return ring?.keys.find((key) => key.state === 'active');
}

/** The key that signs after the next rotation, if any. */
export function nextWebKey(ring: WebKeyRing | undefined): WebKey | undefined {
  return ring?.keys.find((key) => key.state === 'next');
}

/** When the key became the signing key (the start of its rotation interval). */
export function activeSince(key: WebKey): number {
  return key.activatedAt ?? key.createdAt;
}

/** When the key was retired (the start of its retire window). */
export function retiredSince(key: WebKey): number {
  return key.retiredAt ?? key.changedAt;
}

/** True when the active key has signed for `intervalMs` or longer (0 disables scheduled rotation). */
export function isRotationDue(ring: WebKeyRing | undefined, now: number, intervalMs: number): boolean {
  const active = activeWebKey(ring);
  return intervalMs > 0 && active !== undefined && now - activeSince(active) >= intervalMs;
}

/** Retired keys whose retire window is over: every token they signed has expired. */
export function expiredWebKeys(ring: WebKeyRing | undefined, now: number, retireAfterMs: number): WebKey[] {
  return (ring?.keys ?? []).filter((key) => key.state === 'retired' && now - retiredSince(key) >= retireAfterMs);
}

/** An event of the instance's web-key stream. */
export function webKeyEvent(ctx: CommandContext, e: WebKeyEvent): Emitted<WebKeyEvent, 'web_keys'> {
  return emitter(webKeysKind, ctx.instanceId, instanceOwner(ctx.instanceId), ctx.creator)(e);
}

/** `web_key.added` for a new key: the private key is sealed here, so the log never holds it in clear. */
export function addedEvent(ctx: CommandContext, key: NewWebKey): Emitted<WebKeyEvent, 'web_keys'> {
  return webKeyEvent(ctx, {
    type: 'web_key.added',
    payload: { kid: key.kid, algorithm: key.algorithm, publicJwk: key.publicJwk, privateKey: ctx.sealer.seal(key.privateKeyPem) },
  });
}

/** What a web-key command answers. */
export interface WebKeysChange {
  /** Details of the key ring (id = instance id). */
  readonly details: ResourceDetails;
  /** False when nothing changed: the keys were already there, or another process rotated first. */
  readonly changed: boolean;
  /** The key that was active before the command. */
  readonly previousActiveKid: string | undefined;
  readonly activeKid: string | undefined;
  readonly nextKid: string | undefined;
}

export function webKeysChange(outcome: Outcome, instanceId: string, before: AggregateRecord<WebKeyRing> | undefined): WebKeysChange {
  const after = outcome.events.length > 0 ? outcome.record(webKeysKind, instanceId) : before;
  return {
    details: detailsAfter(outcome, { id: instanceId, record: before, owner: instanceOwner(instanceId) }),
    changed: outcome.events.length > 0,
    previousActiveKid: activeWebKey(before?.state)?.kid,
    activeKid: activeWebKey(after?.state)?.kid,
    nextKid: nextWebKey(after?.state)?.kid,
  };
}
