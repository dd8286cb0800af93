/**
 * What both language settings calls share: the feature gate (`multitenancy_settings`), the
 * permission check in the request context, and the resolution of a context's settings.
 * Set: `iam.policy.write` (instance context) / `policy.write` (org context). Resolve needs only
 * an authenticated caller; texts and branding reuse the read check (`iam.policy.read` /
 * `policy.read`).
 */
import {
  type AggregateRecord,
  instanceOwner,
  type LanguageSettings,
  languageSettingsKind,
  orgOwner,
  resolveLanguageSettings,
  type ResolvedLanguageSettings,
} from '../../../../actors/index.js';
import type { CallContext } from '../../call-context.js';
import { requireFeature } from '../../../query/features.js';
import { toSettingsDetails } from '../../shared/settings.js';

export async function requireLanguageAccess(call: CallContext, access: 'read' | 'write'): Promise<void> {
  await requireFeature(call.services.actors, call.instance.id, 'multitenancy_settings');
  if (call.scope.type === 'org') {
    if (await call.can(`iam.policy.${access}`)) return;
    await call.require(`policy.${access}`, call.scope.orgId);
  } else {
    await call.require(`iam.policy.${access}`);
  }
}

export interface ContextLanguageSettings {
  readonly own: AggregateRecord<LanguageSettings> | undefined;
  readonly resolved: ResolvedLanguageSettings;
}

/** The request context's own row and its resolved settings (org → instance → system). */
export async function readLanguageSettings(call: CallContext): Promise<ContextLanguageSettings> {
  const actors = call.services.actors;
  const instanceId = call.instance.id;
  const instance = await actors.readRecord(instanceId, languageSettingsKind, instanceId);
  if (call.scope.type !== 'org') return { own: instance, resolved: resolveLanguageSettings(instanceId, instance?.state) };
  const orgId = call.scope.orgId;
  const org = await actors.readRecord(instanceId, languageSettingsKind, orgId);
  return { own: org, resolved: resolveLanguageSettings(instanceId, instance?.state, { orgId, values: org?.state }) };
}

/** Settings details of the context's own row (sequence 0 when it never set anything). */
export function toContextDetails(call: CallContext, own: AggregateRecord<LanguageSettings> | undefined) {
  const owner = call.scope.type === 'org' ? orgOwner(call.scope.orgId) : instanceOwner(call.instance.id);
  return toSettingsDetails(call.services.actors, call.instance.id, { sequence: own?.meta.sequence ?? 0, changeDate: own?.meta.changedAt ?? 0, owner });
}
