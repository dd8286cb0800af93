/**
 * IDPs the login of an organization may offer (reference facts §4.2 "Login"): the instance's
 * IDPs whose effective state in the organization is active (by the org's policy, or the
 * instance's when it inherits) and the organization's own active IDPs, with the client secret
 * opened. A query: reads rows, never waits in a mailbox. For the login UI (external login).
 */
import type { AggregateRecord } from '../kernel/aggregate.js';
import type { Owner } from '../kernel/ports.js';
import type { ActorSystem } from '../runtime/actor-system.js';
import { idpPolicyId, idpPolicyKind } from '../organization/idp-policy.js';
import { orgKind } from '../organization/org.js';
import { DEFAULT_IDP_SCOPES, idpKind, viewIdp, type Idp, type IdpOptions, type IdpType } from './idp.js';

export interface ActiveIdp {
  readonly id: string;
  readonly name: string;
  readonly idpType: IdpType;
  readonly owner: Owner;
  readonly options: IdpOptions;
  readonly clientId: string;
  /** Opens the sealed client secret with the master key (only when a login goes to the provider); keep it in memory only. */
  clientSecret(): string;
  /** The stored scopes, or `openid profile email` when none. */
  readonly scopes: readonly string[];
  /** The self-hosted forge's base URL; '' for the hosted forge. */
  readonly issuer: string;
}

/** Active IDPs of `orgId` (undefined: the instance itself), ordered by name. */
export async function activeIdpsForOrg(actors: ActorSystem, instanceId: string, orgId: string | undefined): Promise<ActiveIdp[]> {
  if (orgId !== undefined && (await actors.readRecord(instanceId, orgKind, orgId)) === undefined) return [];
  const active: ActiveIdp[] = [];
  for await (const record of actors.scanRecords(instanceId, idpKind)) {
    const owner = record.meta.owner;
    if (owner.type === 'org' && owner.id !== orgId) continue;
    const policy = orgId !== undefined && owner.type === 'instance' ? await actors.readRecord(instanceId, idpPolicyKind, idpPolicyId(orgId, record.id)) : undefined;
    if (viewIdp(record, orgId, policy?.state.policy).state !== 'active') continue;
    active.push(toActiveIdp(record, (sealed) => actors.sealer.open(sealed)));
  }
  return active.sort((a, b) => a.name.localeCompare(b.name));
}

function toActiveIdp(record: AggregateRecord<Idp>, open: (sealed: string) => string): ActiveIdp {
  const { config, ...idp } = record.state;
  return {
    id: record.id,
    name: idp.name,
    idpType: idp.idpType,
    owner: record.meta.owner,
    options: idp.options,
    clientId: config.clientId,
    clientSecret: () => open(config.clientSecret),
    scopes: config.scopes.length > 0 ? config.scopes : DEFAULT_IDP_SCOPES,
    issuer: config.issuer,
  };
}
