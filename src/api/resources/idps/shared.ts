/**
 * What every IDP operation shares: the feature gate, the context an IDP is seen from, the
 * permission check in that context, and domain → wire conversion (never the client secret).
 */
import { create } from '@bufbuild/protobuf';
import {
  type AggregateRecord,
  detailsOf,
  type EffectiveState,
  type Idp,
  idpKind,
  idpPolicyId,
  idpPolicyKind,
  type IdpView,
  notFound,
  type StatePolicy as DomainPolicy,
  viewIdp,
} from '../../../../actors/index.js';
import {
  AutoLinkingOption,
  type GetIDP,
  GetIDPSchema,
  ProviderType,
} from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { State, StatePolicy } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { IDPSchema } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toWireOwner } from '../../shared/convert.js';
import { requireFeature } from '../../../query/features.js';
import { readOwned } from '../../shared/owned.js';

/** Every IDP call needs the instance feature flag `multitenancy_resources_api`. */
export function requireIdpsFeature(call: CallContext): Promise<void> {
  return requireFeature(call.services.actors, call.instance.id, 'multitenancy_resources_api');
}

/** An IDP as seen from a context: `orgId` undefined means the instance. */
export interface IdpInContext {
  readonly record: AggregateRecord<Idp>;
  /** The organization the IDP is seen from (undefined: the instance). */
  readonly orgId: string | undefined;
  /** True when the context is the defining one (config may change). */
  readonly defining: boolean;
  readonly view: IdpView;
}

/**
 * Reads an IDP for Get/Patch/Delete. With an org ctx: the org's own IDPs and the instance's;
 * another org's IDP is 404. Without ctx: the resource's owner context (reference facts §1.2).
 * Then checks `permission` in that context (instance-wide holders pass everywhere).
 */
export async function readIdpInContext(call: CallContext, id: string, permission: string): Promise<IdpInContext> {
  await requireIdpsFeature(call);
  const record = await readOwned(call, idpKind, id);
  const owner = record?.meta.owner;
  if (record === undefined || (call.scope.type === 'org' && owner?.type === 'org' && owner.id !== call.scope.orgId)) {
    await call.require(permission, call.scope.type === 'org' ? call.scope.orgId : undefined);
    throw notFound('idp.not_found', 'identity provider not found');
  }
  const orgId = call.scope.type === 'org' ? call.scope.orgId : record.meta.owner.type === 'org' ? record.meta.owner.id : undefined;
  await call.require(permission, orgId);
  return { record, orgId, defining: orgId === undefined || record.meta.owner.type === 'org', view: await viewIn(call, record, orgId) };
}

/** The view of an IDP from the instance or an organization (reads the org's policy row). */
export async function viewIn(call: CallContext, record: AggregateRecord<Idp>, orgId: string | undefined): Promise<IdpView> {
  if (orgId === undefined || record.meta.owner.type === 'org') return viewIdp(record, orgId, undefined);
  const policy = await call.services.actors.readRecord(call.instance.id, idpPolicyKind, idpPolicyId(orgId, record.id));
  return viewIdp(record, orgId, policy?.state.policy);
}

export function toWireState(state: EffectiveState): State {
  return state === 'active' ? State.EFFECTIVE_STATE_ACTIVE : State.EFFECTIVE_STATE_INACTIVE;
}

export function parseWireState(state: State): EffectiveState | undefined {
  if (state === State.EFFECTIVE_STATE_ACTIVE) return 'active';
  if (state === State.EFFECTIVE_STATE_INACTIVE) return 'inactive';
  return undefined;
}

const POLICIES: Record<DomainPolicy, StatePolicy> = { activate: StatePolicy.ACTIVATE, deactivate: StatePolicy.DEACTIVATE, inherit: StatePolicy.INHERIT };

export function toWireProviderType(idp: Idp): ProviderType {
  return idp.idpType === 'forge' ? ProviderType.FORGE : ProviderType.FORGE_SELF_HOSTED;
}

/** The type-agnostic IDP fields, with the policy of the context it is seen from. */
export function toWireIdp(idp: Idp, view: IdpView): MessageInitShape<typeof IDPSchema> {
  const o = idp.options;
  return {
    name: idp.name,
    statePolicy: POLICIES[view.policy],
    options: {
      isManualLinkingAllowed: o.isManualLinkingAllowed,
      isManualCreationAllowed: o.isManualCreationAllowed,
      isAutoCreation: o.isAutoCreation,
      isAutoUpdate: o.isAutoUpdate,
      autoLinking: o.autoLinking === 'email' ? AutoLinkingOption.EMAIL : o.autoLinking === 'username' ? AutoLinkingOption.USERNAME : AutoLinkingOption.UNSPECIFIED,
    },
  };
}

/** details, parent (from a child context), state and type: the envelope of every read. */
export function toEnvelope(record: AggregateRecord<Idp>, view: IdpView) {
  return {
    details: toDetails(detailsOf(record)),
    ...(view.parent === undefined ? {} : { parent: { parent: toWireOwner(view.parent.owner), state: toWireState(view.parent.state) } }),
    state: toWireState(view.state),
    type: toWireProviderType(record.state),
  };
}

/** A search result element (GetIDP). */
export function toGetIdp(record: AggregateRecord<Idp>, view: IdpView): GetIDP {
  return create(GetIDPSchema, { ...toEnvelope(record, view), idp: toWireIdp(record.state, view) });
}
