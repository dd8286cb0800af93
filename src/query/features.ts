/**
 * "Is feature X on for instance I?" for every module that gates on a flag (issue 3 "Feature
 * flags"). A query: it reads the instance settings row and never waits in a mailbox.
 */
import { type ActorSystem, failedPrecondition, type FeatureName, instanceSettingsKind } from '../../actors/index.js';

/** True when the flag is on for the instance (a flag never set is off). */
export async function isFeatureEnabled(actors: ActorSystem, instanceId: string, name: FeatureName): Promise<boolean> {
  const settings = await actors.readRecord(instanceId, instanceSettingsKind, instanceId);
  return settings?.state.features[name] === true;
}

/** Throws 400 `feature.disabled` (failed precondition) unless the flag is on for the instance. */
export async function requireFeature(actors: ActorSystem, instanceId: string, name: FeatureName): Promise<void> {
  if (!(await isFeatureEnabled(actors, instanceId, name))) {
    throw failedPrecondition('feature.disabled', `the feature ${name} is not enabled for this instance`);
  }
}
