/**
 * Create / patch / get for every IDP type (the typed RPCs are thin wrappers). From a child
 * context (an organization reusing an instance IDP) only `idp.statePolicy` may change; it is
 * recorded as that organization's policy (reference facts §4.2).
 */
import {
  type ActorAddress,
  createIdp,
  type IdpType,
  patchIdp,
  permissionDenied,
  removeIdp,
  type ResourceDetails,
  setIdpPolicy,
  notFound,
  detailsOf,
} from '../../../../actors/index.js';
import type { IDP, PatchIDP } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails } from '../../shared/convert.js';
import { parseCreateInput, parsePatchInput, touchesConfiguration, type WireConfig } from './idp-input.js';
import { type IdpInContext, readIdpInContext, requireIdpsFeature, toEnvelope, toWireIdp } from './shared.js';

const READ_ONLY = 'an inherited identity provider is read-only in this context: only idp.statePolicy may change';

/** Creates an IDP in the request context (an org ctx: owned by that org; else the instance). */
export async function createIdpIn(call: CallContext, idpType: IdpType, idp: IDP | undefined, config: WireConfig | undefined) {
  await requireIdpsFeature(call);
  const input = parseCreateInput(idp, config, idpType);
  const idpId = call.services.actors.ids.next();
  const orgId = call.scope.type === 'org' ? call.scope.orgId : undefined;
  const details = await call.services.actors.ask(addressOf(call, orgId), createIdp, { idpId, idpType, ...(orgId === undefined ? {} : { orgId }), ...input }, {
    creator: call.caller.userId,
  });
  return { details: toDetails(details) };
}

/** Patches an IDP of `idpType`; from a child context only the policy (else 403). */
export async function patchIdpIn(call: CallContext, id: string, idpType: IdpType, idp: PatchIDP | undefined, config: WireConfig | undefined) {
  const seen = await readTyped(call, id, idpType, 'idp.write');
  const input = parsePatchInput(idp, config, idpType);
  const creator = { creator: call.caller.userId };
  let details: ResourceDetails;
  if (!seen.defining && seen.orgId !== undefined) {
    if (touchesConfiguration(input)) throw permissionDenied('idp.inherited_read_only', READ_ONLY);
    details =
      input.policy === undefined
        ? detailsOf(seen.record)
        : await call.services.actors.ask(addressOf(call, seen.orgId), setIdpPolicy, { idpId: id, orgId: seen.orgId, policy: input.policy }, creator);
  } else {
    const { policy, ...rest } = input;
    const command = { idpId: id, idpType, ...rest, ...(policy === undefined ? {} : { policy: policy === 'deactivate' ? ('deactivate' as const) : ('activate' as const) }) };
    details = await call.services.actors.ask(ownerAddress(call, seen), patchIdp, command, creator);
  }
  return { details: toDetails(details) };
}

/** Reads an IDP of `idpType` as seen from the context, with its config minus the secret. */
export async function getIdpIn(call: CallContext, id: string, idpType: IdpType) {
  const seen = await readTyped(call, id, idpType, 'idp.read');
  const { config } = seen.record.state;
  const wireConfig = { clientId: config.clientId, scopes: [...config.scopes], ...(idpType === 'forge_self_hosted' ? { issuer: config.issuer } : {}) };
  return { ...toEnvelope(seen.record, seen.view), idp: { idp: toWireIdp(seen.record.state, seen.view), config: wireConfig } };
}

/** Deletes an IDP of any type in its defining context (a child context → 403). */
export async function deleteIdpIn(call: CallContext, id: string) {
  const seen = await readIdpInContext(call, id, 'idp.delete');
  if (!seen.defining) throw permissionDenied('idp.inherited_read_only', 'an inherited identity provider cannot be deleted in this context');
  const details = await call.services.actors.ask(ownerAddress(call, seen), removeIdp, { idpId: id }, { creator: call.caller.userId });
  return { details: toDetails(details) };
}

async function readTyped(call: CallContext, id: string, idpType: IdpType, permission: string): Promise<IdpInContext> {
  const seen = await readIdpInContext(call, id, permission);
  if (seen.record.state.idpType !== idpType) throw notFound('idp.not_found', 'identity provider not found');
  return seen;
}

function addressOf(call: CallContext, orgId: string | undefined): ActorAddress {
  return orgId === undefined ? { kind: 'instance', instanceId: call.instance.id } : { kind: 'org', instanceId: call.instance.id, orgId };
}

function ownerAddress(call: CallContext, seen: IdpInContext): ActorAddress {
  const owner = seen.record.meta.owner;
  return addressOf(call, owner.type === 'org' ? owner.id : undefined);
}
