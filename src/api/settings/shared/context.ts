/**
 * What the settings services on the framework share at the edge: the command address and org
 * of the request context, the details of the context's own row, and resolved values on the
 * wire. Access (feature gate + policy permissions) is the language settings' check, reused.
 */
import { instanceOwner, orgOwner, type AggregateRecord, type ResolvedValue } from '../../../../actors/index.js';
import type { CallContext } from '../../call-context.js';
import { toWireOwner } from '../../shared/convert.js';
import { toSettingsDetails } from '../../shared/settings.js';

export { requireLanguageAccess as requireSettingsAccess } from '../languages/shared.js';

/** The org of the request context (undefined: the instance). */
export function contextOrgId(call: CallContext): string | undefined {
  return call.scope.type === 'org' ? call.scope.orgId : undefined;
}

/** The actor that owns the context's settings rows. */
export function contextAddress(call: CallContext) {
  const orgId = contextOrgId(call);
  return orgId === undefined ? { kind: 'instance' as const, instanceId: call.instance.id } : { kind: 'org' as const, instanceId: call.instance.id, orgId };
}

/** Settings details of the context's own row (sequence 0 when it never set anything). */
export function contextDetails(call: CallContext, own: AggregateRecord<unknown> | undefined) {
  const orgId = contextOrgId(call);
  const owner = orgId === undefined ? instanceOwner(call.instance.id) : orgOwner(orgId);
  return toSettingsDetails(call.services.actors, call.instance.id, { sequence: own?.meta.sequence ?? 0, changeDate: own?.meta.changedAt ?? 0, owner });
}

/** A resolved value on the wire (ResolvedString, ResolvedBool): `owner` only when inherited. */
export function toResolvedWire<V>(resolved: ResolvedValue<V>) {
  return resolved.owner === undefined ? { value: resolved.value } : { value: resolved.value, owner: toWireOwner(resolved.owner) };
}
