/**
 * Sets an organization's state policy for an instance IDP it reuses (seed 000 "States and
 * transitions"): the policy moves through the state-policy machine; an unchanged policy
 * records nothing. The reply names the IDP and its defining owner.
 */
import { transition } from 'xstate';
import { failedPrecondition, notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { idpKind } from '../../instance/idp.js';
import { statePolicyMachine, type StatePolicy } from '../../machines/state-policy.machine.js';
import { idpPolicyId, idpPolicyKind } from '../idp-policy.js';
import { orgKind } from '../org.js';

export interface SetIdpPolicy {
  readonly idpId: string;
  readonly orgId: string;
  readonly policy: StatePolicy;
}

/** `idp.policy.set`: records `org.idp.policy.set`. */
export const setIdpPolicy: CommandHandler<SetIdpPolicy, ResourceDetails> = {
  load: (c) => [ref(idpKind, c.idpId), ref(orgKind, c.orgId), ref(idpPolicyKind, idpPolicyId(c.orgId, c.idpId))],
  decide(loaded, c, ctx) {
    const idp = loaded.get(idpKind, c.idpId).record;
    if (idp === undefined) throw notFound('idp.not_found', 'identity provider not found');
    if (loaded.get(orgKind, c.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    if (idp.meta.owner.type !== 'instance') throw failedPrecondition('idp.not_inherited', 'only an inherited identity provider has an organization policy');
    const rowId = idpPolicyId(c.orgId, c.idpId);
    const row = loaded.get(idpPolicyKind, rowId).record;
    const current = row?.state.policy ?? 'inherit';
    const snapshot = statePolicyMachine.resolveState({ value: current, context: undefined });
    const [next] = transition(statePolicyMachine, snapshot, { type: 'policy.set', policy: c.policy });
    const policy = next.value as StatePolicy;
    const reply = (outcome: Outcome): ResourceDetails => {
      const last = outcome.events[outcome.events.length - 1];
      const base = row !== undefined && row.meta.sequence > idp.meta.sequence ? row.meta : idp.meta;
      return {
        id: c.idpId,
        sequence: last?.position ?? base.sequence,
        changeDate: last?.createdAt ?? base.changedAt,
        resourceOwner: idp.meta.owner,
      };
    };
    if (policy === current) return { events: [], reply };
    const owner = orgOwner(c.orgId);
    return {
      events: [{ aggregateType: idpPolicyKind.type, aggregateId: rowId, type: 'org.idp.policy.set', owner, creator: ctx.creator, payload: { idpId: c.idpId, policy } }],
      reply,
    };
  },
};
