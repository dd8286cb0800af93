/**
 * POST /resources/v3alpha/smtp_providers/{id}/_activate and _deactivate (`iam.smtp.write`):
 * one active SMTP provider per instance; activating one deactivates the one active before.
 */
import { z } from 'zod';
import { setSmtpProviderActivation } from '../../../../actors/index.js';
import { PlatformSMTPProviders } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

type ActivationMethod = typeof PlatformSMTPProviders.method.activateSMTPProvider;

function defineActivationRpc(method: ActivationMethod, active: boolean) {
  return defineRpc({
    method,
    permission: 'iam.smtp.write',
    async handle(request, call) {
      const { id } = parseWith(input, request);
      const details = await call.services.actors.ask(
        { kind: 'instance', instanceId: call.instance.id },
        setSmtpProviderActivation,
        { providerId: id, active },
        { creator: call.caller.userId },
      );
      return { details: toDetails(details) };
    },
  });
}

export const activateSmtpProviderRpc = defineActivationRpc(PlatformSMTPProviders.method.activateSMTPProvider, true);
export const deactivateSmtpProviderRpc = defineActivationRpc(PlatformSMTPProviders.method.deactivateSMTPProvider, false);
