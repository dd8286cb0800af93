/** Web-key deciders and evolve: given a key ring, when a command, then events / next ring. */
import { describe, expect, it } from 'vitest';
import { foldRecord } from '../../actors/kernel/aggregate.js';
import type { NewEvent, StoredEvent } from '../../actors/kernel/ports.js';
import { initializeWebKeys } from '../../actors/instance/commands/initialize-web-keys.js';
import { pruneWebKeys } from '../../actors/instance/commands/prune-web-keys.js';
import { rotateWebKeys } from '../../actors/instance/commands/rotate-web-keys.js';
import {
  activeWebKey,
  expiredWebKeys,
  isRotationDue,
  nextWebKey,
  webKeysKind,
  type NewWebKey,
  type WebKey,
  type WebKeyRing,
} from '../../actors/instance/web-keys.js';
import { codeOf, context, given, NOW, record } from './decide.fixture.js';

const owner = { type: 'instance', id: 'i1' } as const;
const HOUR = 3_600_000;

function newKey(kid: string): NewWebKey {
  return { kid, algorithm: 'ES256', publicJwk: { kty: 'EC', crv: 'P-256', x: `x-${kid}`, y: `y-${kid}` }, privateKeyPem: `pem-${kid}` };
}

function key(kid: string, state: WebKey['state'], times: Partial<WebKey> = {}): WebKey {
  return {
    kid,
    algorithm: 'ES256',
    publicJwk: { kty: 'EC', crv: 'P-256', x: `x-${kid}`, y: `y-${kid}` },
    sealedPrivateKey: `sealed:pem-${kid}`,
    state,
    createdAt: NOW - 10 * HOUR,
    sequence: 1,
    changedAt: NOW - 10 * HOUR,
    ...times,
  };
}

function ringOf(...keys: WebKey[]) {
  return given([{ kind: webKeysKind, record: record<WebKeyRing>('i1', { keys }, owner, 3) }]);
}

const event = (type: string, payload: unknown): NewEvent => ({ aggregateType: 'web_keys', aggregateId: 'i1', type, owner, creator: 'u-admin', payload });
const added = (kid: string) => event('web_key.added', { kid, algorithm: 'ES256', publicJwk: newKey(kid).publicJwk, privateKey: `sealed:pem-${kid}` });

describe('initializeWebKeys', () => {
  it('gives a new instance two keys, the first active, private keys sealed', () => {
    const decision = initializeWebKeys.decide(given([]), { first: newKey('k1'), second: newKey('k2') }, context());
    expect(decision.events).toEqual([added('k1'), event('web_key.activated', { kid: 'k1' }), added('k2')]);
    expect(JSON.stringify(decision.events)).not.toContain('"pem-');
  });

  it('records nothing when the instance has an active and a next key (idempotent, lost race)', () => {
    const decision = initializeWebKeys.decide(ringOf(key('a', 'active'), key('n', 'next')), { first: newKey('k1'), second: newKey('k2') }, context());
    expect(decision.events).toEqual([]);
  });

  it('promotes a published next key when no key is active, and publishes a new next', () => {
    const decision = initializeWebKeys.decide(ringOf(key('n', 'next'), key('r', 'retired')), { first: newKey('k1'), second: newKey('k2') }, context());
    expect(decision.events).toEqual([event('web_key.activated', { kid: 'n' }), added('k2')]);
  });

  it('adds only a next key when an active key exists without one', () => {
    const decision = initializeWebKeys.decide(ringOf(key('a', 'active')), { first: newKey('k1'), second: newKey('k2') }, context());
    expect(decision.events).toEqual([added('k2')]);
  });
});

describe('rotateWebKeys', () => {
  const ring = () => ringOf(key('old', 'retired', { retiredAt: NOW - 13 * HOUR }), key('recent', 'retired', { retiredAt: NOW - HOUR }), key('a', 'active'), key('n', 'next'));

  it('activates next, retires active, publishes a new next and removes retired keys past the window', () => {
    const decision = rotateWebKeys.decide(ring(), { next: newKey('k3'), retireAfterMs: 12 * HOUR }, context());
    expect(decision.events).toEqual([
      event('web_key.retired', { kid: 'a' }),
      added('k3'),
      event('web_key.activated', { kid: 'n' }),
      event('web_key.removed', { kid: 'old' }),
    ]);
  });

  it('changes nothing when another process rotated first (ifActiveKid no longer active)', () => {
    const decision = rotateWebKeys.decide(ring(), { next: newKey('k3'), retireAfterMs: 12 * HOUR, ifActiveKid: 'someone-else' }, context());
    expect(decision.events).toEqual([]);
  });

  it('rotates when the expected key is still active', () => {
    const decision = rotateWebKeys.decide(ring(), { next: newKey('k3'), retireAfterMs: 12 * HOUR, ifActiveKid: 'a' }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['web_key.retired', 'web_key.added', 'web_key.activated', 'web_key.removed']);
  });

  it('activates the new key at once when no next key was published', () => {
    const decision = rotateWebKeys.decide(ringOf(key('a', 'active')), { next: newKey('k3'), retireAfterMs: HOUR }, context());
    expect(decision.events).toEqual([event('web_key.retired', { kid: 'a' }), added('k3'), event('web_key.activated', { kid: 'k3' })]);
  });

  it.each([
    ['an instance without keys', given([]), newKey('k3'), 'web_key.not_initialized'],
    ['a kid already in the ring', ringOf(key('a', 'active'), key('n', 'next')), newKey('n'), 'web_key.exists'],
  ])('refuses %s', (_name, loaded, next, code) => {
    expect(codeOf(() => rotateWebKeys.decide(loaded, { next, retireAfterMs: HOUR }, context()))).toBe(code);
  });
});

describe('pruneWebKeys', () => {
  it('removes retired keys whose window is over, nothing else', () => {
    const loaded = ringOf(key('old', 'retired', { retiredAt: NOW - 2 * HOUR }), key('new', 'retired', { retiredAt: NOW - HOUR + 1 }), key('a', 'active'));
    const decision = pruneWebKeys.decide(loaded, { retireAfterMs: HOUR }, context());
    expect(decision.events).toEqual([event('web_key.removed', { kid: 'old' })]);
  });

  it('records nothing when no key is due', () => {
    expect(pruneWebKeys.decide(ringOf(key('a', 'active')), { retireAfterMs: HOUR }, context()).events).toEqual([]);
  });
});

describe('webKeysKind.evolve', () => {
  function stored(events: readonly NewEvent[], at: number): StoredEvent[] {
    return events.map((e, i) => ({ ...e, instanceId: 'i1', version: i + 1, position: 100 + i, createdAt: at }));
  }

  it('folds a lifecycle: added → active → retired → removed, with timestamps and per-key sequence', () => {
    const init = initializeWebKeys.decide(given([]), { first: newKey('k1'), second: newKey('k2') }, context()).events;
    let row = foldRecord(webKeysKind, 'i1', undefined, stored(init, NOW));
    expect(activeWebKey(row?.state)).toMatchObject({ kid: 'k1', state: 'active', activatedAt: NOW, sealedPrivateKey: 'sealed:pem-k1', sequence: 101 });
    expect(nextWebKey(row?.state)).toMatchObject({ kid: 'k2', state: 'next', createdAt: NOW });

    const later = NOW + 31 * 24 * HOUR;
    expect(isRotationDue(row?.state, later, 30 * 24 * HOUR)).toBe(true);
    expect(isRotationDue(row?.state, later, 0)).toBe(false);
    const rotate = rotateWebKeys.decide(given([{ kind: webKeysKind, record: row }]), { next: newKey('k3'), retireAfterMs: HOUR }, context({ now: later }));
    row = foldRecord(webKeysKind, 'i1', row, stored(rotate.events, later).map((e, i) => ({ ...e, version: 4 + i, position: 200 + i })));
    expect(row?.state.keys.map((k) => [k.kid, k.state])).toEqual([['k1', 'retired'], ['k2', 'active'], ['k3', 'next']]);
    expect(row?.state.keys[0]).toMatchObject({ retiredAt: later, changedAt: later });
    expect(expiredWebKeys(row?.state, later + HOUR, HOUR).map((k) => k.kid)).toEqual(['k1']);
    expect(expiredWebKeys(row?.state, later + HOUR - 1, HOUR)).toEqual([]);

    const prune = pruneWebKeys.decide(given([{ kind: webKeysKind, record: row }]), { retireAfterMs: HOUR }, context({ now: later + HOUR }));
    row = foldRecord(webKeysKind, 'i1', row, stored(prune.events, later + HOUR).map((e) => ({ ...e, version: 7, position: 300 })));
    expect(row?.state.keys.map((k) => k.kid)).toEqual(['k2', 'k3']);
  });
});
