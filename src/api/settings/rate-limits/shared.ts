/** What both RPCs of PlatformRateLimitSettings check. */
import { validationFailed } from '../../../../actors/index.js';
import type { CallContext } from '../../call-context.js';

/** Rate limits are the instance's: an organization context is a 400 naming `ctx`. */
export function refuseOrgContext(call: Pick<CallContext, 'scope'>): void {
  if (call.scope.type === 'org') {
    throw validationFailed([{ field: 'ctx', description: 'rate limits are set on the instance, not on an organization' }], 'rate_limit.instance_only');
  }
}
