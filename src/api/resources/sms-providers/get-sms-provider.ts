/** GetSMSProvider: GET /resources/v3alpha/sms_providers/{id} (`iam.sms.read`; never a secret). */
import { z } from 'zod';
import { SMS_PROVIDERS } from '../../../../actors/index.js';
import { PlatformSMSProviders } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { activeProviderId, readProvider } from '../../shared/providers.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toGetSmsProvider } from './shared.js';

const input = z.object({ id: resourceId });

export const getSmsProviderRpc = defineRpc({
  method: PlatformSMSProviders.method.getSMSProvider,
  permission: 'iam.sms.read',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const record = await readProvider(call, SMS_PROVIDERS, id);
    return { smsProvider: toGetSmsProvider(record, await activeProviderId(call, SMS_PROVIDERS)) };
  },
});
