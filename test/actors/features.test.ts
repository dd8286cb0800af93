/** Feature flag deciders: partial set, one event per changed flag, no change → no event. */
import { describe, expect, it } from 'vitest';
import { setFeatures } from '../../actors/instance/commands/set-features.js';
import { isKnownFeature, KNOWN_FEATURES } from '../../actors/instance/features.js';
import { instanceSettingsKind } from '../../actors/instance/settings.js';
import { context, given, noOutcome, record } from './decide.fixture.js';

const owner = { type: 'instance', id: 'i1' } as const;
const stored = given([{ kind: instanceSettingsKind, record: record('i1', { defaultOrgId: 'o1', features: { token_exchange: true } }, owner, 4) }]);

describe('setFeatures', () => {
  it('records one instance.feature.set per flag whose value changes', () => {
    const decision = setFeatures.decide(stored, { features: { token_exchange: true, impersonation: true, multitenancy_settings: false } }, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([
      ['instance.feature.set', { name: 'impersonation', value: true }],
      ['instance.feature.set', { name: 'multitenancy_settings', value: false }],
    ]);
    expect(decision.events.every((e) => e.aggregateId === 'i1' && e.owner.id === 'i1')).toBe(true);
  });

  it('records nothing when nothing changes and answers the current details', () => {
    const decision = setFeatures.decide(stored, { features: { token_exchange: true } }, context());
    expect(decision.events).toEqual([]);
    expect(decision.reply(noOutcome)).toMatchObject({ id: 'i1', sequence: 4, resourceOwner: owner });
    expect(setFeatures.decide(stored, { features: {} }, context()).events).toEqual([]);
  });

  it('works on an instance without settings yet', () => {
    expect(setFeatures.decide(given([]), { features: { token_exchange: true } }, context()).events).toHaveLength(1);
  });
});

describe('known features', () => {
  it('lists the flags of issue 3', () => {
    expect(KNOWN_FEATURES).toEqual(['multitenancy_resources_api', 'multitenancy_settings', 'token_exchange', 'impersonation']);
    expect(isKnownFeature('token_exchange')).toBe(true);
    expect(isKnownFeature('tokenExchange')).toBe(false);
  });
});
