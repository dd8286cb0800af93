/** DeleteSMSProvider: DELETE /resources/v3alpha/sms_providers/{id} (`iam.sms.delete`); an active provider is deactivated with it. */
import { z } from 'zod';
import { removeSmsProvider } from '../../../../actors/index.js';
import { PlatformSMSProviders } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId });

export const deleteSmsProviderRpc = defineRpc({
  method: PlatformSMSProviders.method.deleteSMSProvider,
  permission: 'iam.sms.delete',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const details = await call.services.actors.ask({ kind: 'instance', instanceId: call.instance.id }, removeSmsProvider, { providerId: id }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
