/** The state-policy machine through xstate's pure transition(), and the effective-state matrix. */
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  effectiveState,
  effectiveStateAlong,
  statePolicyMachine,
  type EffectiveState,
  type StatePolicy,
} from '../../../actors/machines/state-policy.machine.js';

describe('state policy machine', () => {
  it('starts in inherit and moves between every policy with policy.set', () => {
    const [initial] = initialTransition(statePolicyMachine);
    expect(initial.value).toBe('inherit');
    let snapshot = initial;
    const order: StatePolicy[] = ['activate', 'deactivate', 'inherit', 'deactivate', 'activate', 'inherit'];
    for (const policy of order) {
      [snapshot] = transition(statePolicyMachine, snapshot, { type: 'policy.set', policy });
      expect(snapshot.value).toBe(policy);
    }
  });

  it('setting the same policy again stays there', () => {
    const [initial] = initialTransition(statePolicyMachine);
    const [a] = transition(statePolicyMachine, initial, { type: 'policy.set', policy: 'activate' });
    const [b] = transition(statePolicyMachine, a, { type: 'policy.set', policy: 'activate' });
    expect(b.value).toBe('activate');
  });
});

describe('effective state', () => {
  it('in the defining context: deactivate → inactive, anything else → active', () => {
    expect(effectiveState('activate', undefined)).toBe('active');
    expect(effectiveState('deactivate', undefined)).toBe('inactive');
    expect(effectiveState('inherit', undefined)).toBe('active');
    expect(effectiveState(undefined, undefined)).toBe('active');
  });

  const matrix: [EffectiveState, StatePolicy | undefined, EffectiveState][] = [
    ['active', 'activate', 'active'],
    ['active', 'deactivate', 'inactive'],
    ['active', 'inherit', 'active'],
    ['active', undefined, 'active'],
    ['inactive', 'activate', 'active'],
    ['inactive', 'deactivate', 'inactive'],
    ['inactive', 'inherit', 'inactive'],
    ['inactive', undefined, 'inactive'],
  ];
  it.each(matrix)('parent %s × child policy %s → %s', (parent, policy, expected) => {
    expect(effectiveState(policy, parent)).toBe(expected);
  });

  it('follows a chain: instance deactivate, org inherit → inactive; org activate → active', () => {
    expect(effectiveStateAlong(['deactivate', 'inherit'])).toBe('inactive');
    expect(effectiveStateAlong(['deactivate', 'activate'])).toBe('active');
    expect(effectiveStateAlong(['activate', 'inherit', 'inherit'])).toBe('active');
    expect(effectiveStateAlong([])).toBe('active');
  });
});
