/**
 * ResolveBranding: GET /settings/v3alpha/branding. Every branding property of the context;
 * an inherited one names its owner (the system: the login UI's built-in look).
 */
import { brandingSettingsKind, resolveBrandingSettings, type ResolvedValue } from '../../../../actors/index.js';
import { PlatformBrandingSettings } from '../../../gen/platform/settings/branding/v3alpha/branding_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { contextDetails, contextOrgId, requireSettingsAccess, toResolvedWire } from '../shared/context.js';

export const resolveBrandingRpc = defineRpc({
  method: PlatformBrandingSettings.method.resolveBranding,
  permission: 'authenticated',
  async handle(_request, call) {
    await requireSettingsAccess(call, 'read');
    const actors = call.services.actors;
    const instanceId = call.instance.id;
    const orgId = contextOrgId(call);
    const instance = await actors.readRecord(instanceId, brandingSettingsKind, instanceId);
    const org = orgId === undefined ? undefined : await actors.readRecord(instanceId, brandingSettingsKind, orgId);
    const resolved = resolveBrandingSettings(instanceId, instance?.state, orgId === undefined ? undefined : { orgId, values: org?.state });
    const settings = Object.fromEntries(Object.entries(resolved as Record<string, ResolvedValue<unknown>>).map(([key, value]) => [key, toResolvedWire(value)]));
    return { details: await contextDetails(call, orgId === undefined ? instance : org), settings };
  },
});
