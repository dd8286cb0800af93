/**
 * POST /resources/v3alpha/sms_providers/{id}/_activate and _deactivate (`iam.sms.write`):
 * one active SMS provider per instance; activating one deactivates the one active before.
 */
import { z } from 'zod';
import { setSmsProviderActivation } from '../../../../actors/index.js';
import { PlatformSMSProviders } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

type ActivationMethod = typeof PlatformSMSProviders.method.activateSMSProvider;

function defineActivationRpc(method: ActivationMethod, active: boolean) {
  return defineRpc({
    method,
    permission: 'iam.sms.write',
    async handle(request, call) {
      const { id } = parseWith(input, request);
      const details = await call.services.actors.ask(
        { kind: 'instance', instanceId: call.instance.id },
        setSmsProviderActivation,
        { providerId: id, active },
        { creator: call.caller.userId },
      );
      return { details: toDetails(details) };
    },
  });
}

export const activateSmsProviderRpc = defineActivationRpc(PlatformSMSProviders.method.activateSMSProvider, true);
export const deactivateSmsProviderRpc = defineActivationRpc(PlatformSMSProviders.method.deactivateSMSProvider, false);
