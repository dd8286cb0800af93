/** Instance directory deciders and evolve (system tenant): given state, when command, then events / error code. */
import { describe, expect, it } from 'vitest';
import { addInstanceDomain } from '../../actors/system/commands/add-instance-domain.js';
import { createInstance } from '../../actors/system/commands/create-instance.js';
import { patchInstance } from '../../actors/system/commands/patch-instance.js';
import { removeInstanceDomain } from '../../actors/system/commands/remove-instance-domain.js';
import { removeInstance } from '../../actors/system/commands/remove-instance.js';
import { setInstanceLimits } from '../../actors/system/commands/set-instance-limits.js';
import { instanceKind, NO_LIMITS, type InstanceEntry, type InstanceEvent } from '../../actors/system/instance.js';
import { codeOf, context, given, noOutcome, record } from './decide.fixture.js';
import { recorded } from './fold.fixture.js';

const owner = { type: 'instance', id: 'i1' } as const;
const entry = (domains: string[] = ['a.example', 'b.example'], limits = NO_LIMITS): InstanceEntry => ({ name: 'Acme', domains, state: 'active', limits });
const existing = (state = entry()) => given([{ kind: instanceKind, record: record('i1', state, owner) }]);
const ctx = context({ instanceId: '_system', creator: 'system:ops' });

describe('createInstance', () => {
  it('records instance.added and claims the domain', () => {
    const decision = createInstance.decide(given([]), { instanceId: 'i1', name: ' Acme ', domain: 'a.example' }, ctx);
    expect(decision.events).toEqual([
      { aggregateType: 'instance', aggregateId: 'i1', type: 'instance.added', owner, creator: 'system:ops', payload: { name: 'Acme', domain: 'a.example' } },
    ]);
    expect(decision.claims).toEqual([{ scope: 'instance.domain', value: 'a.example', holder: 'i1' }]);
  });

  it('refuses an id whose stream exists (also a removed one)', () => {
    expect(codeOf(() => createInstance.decide(given([{ kind: instanceKind, id: 'i1', version: 3 }]), { instanceId: 'i1', name: 'X', domain: 'x' }, ctx))).toBe('instance.exists');
  });
});

describe('patchInstance', () => {
  it('records nothing when nothing changes, instance.changed otherwise', () => {
    expect(patchInstance.decide(existing(), { instanceId: 'i1', name: 'Acme' }, ctx).events).toEqual([]);
    expect(patchInstance.decide(existing(), { instanceId: 'i1' }, ctx).events).toEqual([]);
    expect(patchInstance.decide(existing(), { instanceId: 'i1' }, ctx).reply(noOutcome)).toMatchObject({ id: 'i1', sequence: 1 });
    expect(patchInstance.decide(existing(), { instanceId: 'i1', name: ' Globex ' }, ctx).events.map((e) => e.payload)).toEqual([{ name: 'Globex' }]);
  });

  it('is not found for an absent instance', () => {
    expect(codeOf(() => patchInstance.decide(given([]), { instanceId: 'i1', name: 'X' }, ctx))).toBe('instance.not_found');
  });
});

describe('removeInstance', () => {
  it('records instance.removed and releases every domain', () => {
    const decision = removeInstance.decide(existing(), { instanceId: 'i1' }, ctx);
    expect(decision.events.map((e) => e.type)).toEqual(['instance.removed']);
    expect(decision.releases).toEqual([
      { scope: 'instance.domain', value: 'a.example' },
      { scope: 'instance.domain', value: 'b.example' },
    ]);
    expect(codeOf(() => removeInstance.decide(given([]), { instanceId: 'i1' }, ctx))).toBe('instance.not_found');
  });
});

describe('instance domains', () => {
  it('adds a domain with a claim; refuses one the instance already has', () => {
    const decision = addInstanceDomain.decide(existing(), { instanceId: 'i1', domain: 'c.example' }, ctx);
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([['instance.domain.added', { domain: 'c.example' }]]);
    expect(decision.claims).toEqual([{ scope: 'instance.domain', value: 'c.example', holder: 'i1' }]);
    expect(codeOf(() => addInstanceDomain.decide(existing(), { instanceId: 'i1', domain: 'a.example' }, ctx))).toBe('instance.domain_exists');
    expect(codeOf(() => addInstanceDomain.decide(given([]), { instanceId: 'i1', domain: 'c.example' }, ctx))).toBe('instance.not_found');
  });

  it('removes a domain with a release; refuses an unknown one and the last one', () => {
    const decision = removeInstanceDomain.decide(existing(), { instanceId: 'i1', domain: 'b.example' }, ctx);
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([['instance.domain.removed', { domain: 'b.example' }]]);
    expect(decision.releases).toEqual([{ scope: 'instance.domain', value: 'b.example' }]);
    expect(codeOf(() => removeInstanceDomain.decide(existing(), { instanceId: 'i1', domain: 'z.example' }, ctx))).toBe('instance.domain_not_found');
    expect(codeOf(() => removeInstanceDomain.decide(existing(entry(['a.example'])), { instanceId: 'i1', domain: 'a.example' }, ctx))).toBe('instance.domain_last');
  });
});

describe('setInstanceLimits', () => {
  const two = given([
    { kind: instanceKind, record: record('i1', entry(), owner) },
    { kind: instanceKind, record: record('i2', entry(['c.example'], { block: true, auditLogRetentionMs: 0 }), { type: 'instance', id: 'i2' }) },
  ]);

  it('records only the fields that change, per instance', () => {
    const decision = setInstanceLimits.decide(two, { updates: [{ instanceId: 'i1', block: true, auditLogRetentionMs: 0 }, { instanceId: 'i2', block: true }] }, ctx);
    expect(decision.events.map((e) => [e.aggregateId, e.type, e.payload])).toEqual([['i1', 'instance.limits.set', { block: true }]]);
    const replies = decision.reply(noOutcome);
    expect(replies.map((d) => d.id)).toEqual(['i1', 'i2']);
  });

  it('refuses an unknown instance and an instance named twice (nothing is written)', () => {
    expect(codeOf(() => setInstanceLimits.decide(two, { updates: [{ instanceId: 'i1', block: true }, { instanceId: 'i9', block: true }] }, ctx))).toBe('instance.not_found');
    expect(codeOf(() => setInstanceLimits.decide(two, { updates: [{ instanceId: 'i1' }, { instanceId: 'i1' }] }, ctx))).toBe('instance.limits_duplicate');
  });
});

describe('instanceKind.evolve', () => {
  const event = (e: InstanceEvent) => recorded(instanceKind, e, { owner, createdAt: 0 });

  it('folds domains and limits, and removal', () => {
    let state = instanceKind.evolve(undefined, event({ type: 'instance.added', payload: { name: 'A', domain: 'a.example' } }));
    expect(state).toEqual({ name: 'A', domains: ['a.example'], state: 'active', limits: NO_LIMITS });
    state = instanceKind.evolve(state, event({ type: 'instance.domain.added', payload: { domain: 'b.example' } }));
    state = instanceKind.evolve(state, event({ type: 'instance.domain.removed', payload: { domain: 'a.example' } }));
    state = instanceKind.evolve(state, event({ type: 'instance.limits.set', payload: { block: true } }));
    state = instanceKind.evolve(state, event({ type: 'instance.limits.set', payload: { auditLogRetentionMs: 3_600_000 } }));
    expect(state).toEqual({ name: 'A', domains: ['b.example'], state: 'active', limits: { block: true, auditLogRetentionMs: 3_600_000 } });
    expect(instanceKind.evolve(state, event({ type: 'instance.removed', payload: {} }))).toBeUndefined();
  });
});
