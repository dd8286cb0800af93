/**
 * TestSMTPProvider: POST /resources/v3alpha/smtp_providers/{id}/_test (`iam.smtp.write`) sends a
 * test mail to `receiver.address` through the provider (active or not) and answers 200 with the
 * server's reply, or its error (authentication refused, connection or TLS failure, a host the
 * outbound policy refuses). Bad input is a 400 naming the field.
 */
import { z } from 'zod';
import { SMTP_PROVIDERS } from '../../../../actors/index.js';
import { outboundPolicyOf } from '../../../delivery/policy.js';
import { sendMail } from '../../../delivery/smtp.js';
import { PlatformSMTPProviders } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { readProvider } from '../../shared/providers.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { emailAddress } from '../users/input.js';

const input = z.object({ id: resourceId, receiver: z.object({ address: emailAddress }, 'required') });

export const testSmtpProviderRpc = defineRpc({
  method: PlatformSMTPProviders.method.testSMTPProvider,
  permission: 'iam.smtp.write',
  async handle(request, call) {
    const { id, receiver } = parseWith(input, request);
    const { state } = await readProvider(call, SMTP_PROVIDERS, id);
    const password = state.password === '' ? '' : call.services.actors.sealer.open(state.password);
    const result = await sendMail(
      { ...state, password },
      {
        to: receiver.address,
        subject: 'Tessera test mail',
        text: `This is a test mail of the SMTP provider ${id} of the instance ${call.instance.id}. It was delivered.`,
      },
      outboundPolicyOf(call.services.config),
    );
    return { success: result.success, providerAnswer: result.answer, messageId: result.messageId ?? '' };
  },
});
