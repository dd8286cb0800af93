/**
 * SetFeatures: PATCH /settings/v3alpha/features with a map flag name → bool. Partial: flags
 * not named keep their value; unknown names → 400. Flags belong to the instance, so an
 * organization context is refused.
 */
import { isKnownFeature, setFeatures, validationFailed, type FieldViolation } from '../../../../actors/index.js';
import { PlatformFeatures } from '../../../gen/platform/settings/feature/v3alpha/feature_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';

export const setFeaturesRpc = defineRpc({
  method: PlatformFeatures.method.setFeatures,
  permission: 'iam.feature.write',
  async handle(request, call) {
    if (call.scope.type === 'org') {
      throw validationFailed([{ field: 'ctx', description: 'feature flags are set on the instance, not on an organization' }], 'feature.instance_only');
    }
    checkNames(request.features);
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      setFeatures,
      { features: { ...request.features } },
      { creator: call.caller.userId },
    );
    return { details: await toSettingsDetailsAfter(call.services.actors, call.instance.id, details) };
  },
});

function checkNames(features: Readonly<Record<string, boolean>>): void {
  const violations: FieldViolation[] = Object.keys(features)
    .filter((name) => !isKnownFeature(name))
    .map((name) => ({ field: name.length <= 64 && /^[a-z0-9_]+$/i.test(name) ? `features.${name}` : 'features', description: 'unknown feature flag' }));
  if (violations.length > 0) throw validationFailed(violations, 'feature.unknown');
}
