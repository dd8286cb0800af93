/**
 * CreateSMSProvider: POST /resources/v3alpha/sms_providers → 201 (`iam.sms.write`;
 * instance-owned, inactive). A generic provider gets a signing key, returned only here.
 */
import { createSmsProvider } from '../../../../actors/index.js';
import { randomAlphanumeric } from '../../../crypto/random.js';
import { PlatformSMSProviders } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseCreate } from './input.js';
import { requireAllowedUrl, SIGNING_KEY_LENGTH } from './shared.js';

export const createSmsProviderRpc = defineRpc({
  method: PlatformSMSProviders.method.createSMSProvider,
  permission: 'iam.sms.write',
  created: true,
  async handle(request, call) {
    const fields = parseCreate(request.smsProvider);
    if (fields.providerType === 'generic') await requireAllowedUrl(call, fields.url, 'smsProvider.generic.url');
    else await requireAllowedUrl(call, fields.baseUrl, 'smsProvider.twilio.baseUrl');
    const signingKey = fields.providerType === 'generic' ? randomAlphanumeric(SIGNING_KEY_LENGTH) : '';
    const providerId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      createSmsProvider,
      { providerId, fields: { ...fields, signingKey } },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details), signingKey };
  },
});
