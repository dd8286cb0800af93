/** GetSMTPProvider: GET /resources/v3alpha/smtp_providers/{id} (`iam.smtp.read`; never the password). */
import { z } from 'zod';
import { SMTP_PROVIDERS } from '../../../../actors/index.js';
import { PlatformSMTPProviders } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { activeProviderId, readProvider } from '../../shared/providers.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toGetSmtpProvider } from './shared.js';

const input = z.object({ id: resourceId });

export const getSmtpProviderRpc = defineRpc({
  method: PlatformSMTPProviders.method.getSMTPProvider,
  permission: 'iam.smtp.read',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const record = await readProvider(call, SMTP_PROVIDERS, id);
    return { smtpProvider: toGetSmtpProvider(record, await activeProviderId(call, SMTP_PROVIDERS)) };
  },
});
