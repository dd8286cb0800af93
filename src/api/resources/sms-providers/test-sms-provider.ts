/**
 * TestSMSProvider: POST /resources/v3alpha/sms_providers/{id}/_test (`iam.sms.write`) sends a
 * test SMS to `receiver.number` through the provider (active or not) and answers 200 with the
 * provider's status and answer, or the connection error. Bad input is a 400 naming the field.
 */
import { z } from 'zod';
import { SMS_PROVIDERS } from '../../../../actors/index.js';
import { outboundPolicyOf } from '../../../delivery/policy.js';
import { sendSms, smsSettingsOf } from '../../../delivery/sms.js';
import { PlatformSMSProviders } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { readProvider } from '../../shared/providers.js';
import { parseWith, resourceId } from '../../shared/validate.js';

const input = z.object({ id: resourceId, receiver: z.object({ number: z.string().regex(/^\+[0-9]{8,15}$/, 'must be an E.164 number: "+" and 8 to 15 digits') }, 'required') });

export const testSmsProviderRpc = defineRpc({
  method: PlatformSMSProviders.method.testSMSProvider,
  permission: 'iam.sms.write',
  async handle(request, call) {
    const { id, receiver } = parseWith(input, request);
    const { state } = await readProvider(call, SMS_PROVIDERS, id);
    const settings = smsSettingsOf(state, (sealed) => call.services.actors.sealer.open(sealed));
    const result = await sendSms(
      settings,
      { to: receiver.number, text: 'Tessera test message: your SMS provider works.', instanceId: call.instance.id, providerId: id },
      outboundPolicyOf(call.services.config),
      Math.floor(call.services.clock.now() / 1000),
    );
    return { success: result.success, providerAnswer: result.answer };
  },
});
