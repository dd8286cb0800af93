/**
 * The state policy of a reusable resource in one context (seed 000 "States and transitions",
 * reference facts §4.2): `inherit` (the default in a child context), `activate`, `deactivate`.
 * Pure: `policy.set` moves between the three from any state. `effectiveState` computes the
 * state a context sees from its policy and, for `inherit`, the parent's effective state.
 */
import { assertEvent, setup } from 'xstate';

export type StatePolicy = 'inherit' | 'activate' | 'deactivate';
export type EffectiveState = 'active' | 'inactive';

export type StatePolicyEvent = { type: 'policy.set'; policy: StatePolicy };

export const statePolicyMachine = setup({
  types: { events: {} as StatePolicyEvent },
  guards: {
    isInherit: ({ event }) => {
      assertEvent(event, 'policy.set');
      return event.policy === 'inherit';
    },
    isActivate: ({ event }) => {
      assertEvent(event, 'policy.set');
      return event.policy === 'activate';
    },
    isDeactivate: ({ event }) => {
      assertEvent(event, 'policy.set');
      return event.policy === 'deactivate';
    },
  },
}).createMachine({
  id: 'statePolicy',
  initial: 'inherit',
  on: {
    'policy.set': [
      { guard: 'isInherit', target: '.inherit' },
      { guard: 'isActivate', target: '.activate' },
      { guard: 'isDeactivate', target: '.deactivate' },
    ],
  },
  states: { inherit: {}, activate: {}, deactivate: {} },
});

/**
 * The effective state in a context. `parentState` is the parent's effective state, or
 * undefined in the defining context (which has no parent owning the resource): there
 * `deactivate` → inactive and anything else (absent, inherit) → active.
 */
export function effectiveState(policy: StatePolicy | undefined, parentState: EffectiveState | undefined): EffectiveState {
  if (policy === 'activate') return 'active';
  if (policy === 'deactivate') return 'inactive';
  return parentState ?? 'active';
}

/** The effective state down a chain of policies, from the defining context to the last child. */
export function effectiveStateAlong(policies: readonly (StatePolicy | undefined)[]): EffectiveState {
  let state: EffectiveState | undefined;
  for (const policy of policies) state = effectiveState(policy, state);
  return state ?? 'active';
}
