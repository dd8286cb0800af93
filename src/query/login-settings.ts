/**
 * The login policy that applies (issue 14 "Login policy settings") for every module that acts
 * on it — the login UI, the OIDC layer, the settings API: `loginSettingsFor(actors, instance,
 * org?)`. An organization's own policy when it has one, else the instance's, else the defaults.
 * Answered by the instance's read state (actors/instance/read-state.ts), which the change feed,
 * the worker feed and this node's own appends keep current by stream version.
 */
import { type ActorSystem, effectiveLoginSettings, type EffectiveLoginSettings, loginSettingsKind } from '../../actors/index.js';

/**
 * The effective login policy of an organization (its own, else the instance's) or of the
 * instance (`orgId` undefined). `fresh`: read the rows now through `actors` (the request's reads)
 * instead of the read state — the settings API answers what the store holds.
 */
export function loginSettingsFor(actors: ActorSystem, instanceId: string, orgId?: string, options: { readonly fresh?: boolean } = {}): Promise<EffectiveLoginSettings> {
  if (options.fresh === true) return readLoginSettings(actors, instanceId, orgId);
  return actors.instanceState(instanceId).loginSettings(orgId);
}

async function readLoginSettings(actors: ActorSystem, instanceId: string, orgId: string | undefined): Promise<EffectiveLoginSettings> {
  const instance = await actors.readRecord(instanceId, loginSettingsKind, instanceId);
  const org = orgId === undefined ? undefined : await actors.readRecord(instanceId, loginSettingsKind, orgId);
  return effectiveLoginSettings(instanceId, instance, orgId === undefined ? undefined : { orgId, record: org });
}
