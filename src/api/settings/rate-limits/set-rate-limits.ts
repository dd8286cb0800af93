/**
 * SetRateLimitSettings: PATCH /settings/v3alpha/rate_limits (`iam.policy.write`). Partial: a
 * limit left out keeps its value; `{"set": "N/duration"}` or `{"set": "off"}` sets it,
 * `{"reset": true}` returns it to the node default. A bad value is a 400 naming the field.
 * The instance's limits apply from the next request on this node at once and on the other
 * nodes once their change feed reports the write.
 */
import { setRateLimits, validationFailed, type FieldViolation } from '../../../../actors/index.js';
import { parseRate } from '../../../config/duration.js';
import { PlatformRateLimitSettings } from '../../../gen/platform/settings/rate_limit/v3alpha/rate_limit_service_pb.js';
import { LIMIT_SETTINGS } from '../../../http/rate-limits.js';
import { defineRpc } from '../../invoker.js';
import { toSettingsDetailsAfter } from '../../shared/settings.js';
import { parseSetString } from '../shared/set-values.js';
import { refuseOrgContext } from './shared.js';

export const setRateLimitSettingsRpc = defineRpc({
  method: PlatformRateLimitSettings.method.setRateLimitSettings,
  permission: 'iam.policy.write',
  async handle(request, call) {
    refuseOrgContext(call);
    const violations: FieldViolation[] = [];
    const limits: Record<string, string | null> = {};
    for (const name of LIMIT_SETTINGS) {
      const property = request.limits?.[name]?.property;
      if (property === undefined) continue;
      const field = `limits.${name}`;
      const parsed = parseSetString(property, 'short', field, violations);
      if (parsed === undefined) continue;
      if (parsed.kind === 'reset') {
        limits[name] = null;
        continue;
      }
      const text = parsed.value.trim();
      if (parseRate(text) === undefined) violations.push({ field: `${field}.set`, description: 'must be N/duration such as 10/1m or 1000/1s (whole seconds, at least 1s), or off' });
      else limits[name] = text;
    }
    if (violations.length > 0) throw validationFailed(violations);
    const instanceId = call.instance.id;
    const details = await call.services.actors.ask({ kind: 'instance', instanceId }, setRateLimits, { limits }, { creator: call.caller.userId });
    call.services.limits?.invalidate(instanceId);
    return { details: await toSettingsDetailsAfter(call.services.actors, instanceId, details) };
  },
});
