/**
 * An organization's state policy for an instance IDP it reuses (seed 000 "Rules for reusable
 * resources" 3): one row per (organization, IDP), `inherit` until set.
 */
import { idpPolicyEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import type { StatePolicy } from '../machines/state-policy.machine.js';

export interface IdpPolicy {
  readonly idpId: string;
  readonly policy: StatePolicy;
}

export type IdpPolicyEvent = { type: 'org.idp.policy.set'; payload: { idpId: string; policy: StatePolicy } };

/** Row id of an organization's policy for an IDP. */
export function idpPolicyId(orgId: string, idpId: string): string {
  return `${orgId}:${idpId}`;
}

/** Stream type `idp_policy`, table `idp_policies`. */
export const idpPolicyKind: AggregateKind<IdpPolicy, IdpPolicyEvent, 'idp_policy'> = {
  type: 'idp_policy',
  table: 'idp_policies',
  events: idpPolicyEvents,
  evolve(state, e) {
    if (e.type === 'org.idp.policy.set') return { idpId: e.payload.idpId, policy: e.payload.policy };
    return state;
  },
};
