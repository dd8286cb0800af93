/**
 * PatchSMSProvider: PATCH /resources/v3alpha/sms_providers/{id} (`iam.sms.write`); absent fields
 * stay, a patch that changes nothing succeeds. Only the member of the provider's own type may be
 * set (400 naming it otherwise); `regenerateSigningKey` (generic) returns the new key once.
 */
import { z } from 'zod';
import { patchSmsProvider, SMS_PROVIDERS, validationFailed } from '../../../../actors/index.js';
import { randomAlphanumeric } from '../../../crypto/random.js';
import { PlatformSMSProviders } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { readProvider } from '../../shared/providers.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { parsePatch } from './input.js';
import { requireAllowedUrl, SIGNING_KEY_LENGTH } from './shared.js';

const idInput = z.object({ id: resourceId });

export const patchSmsProviderRpc = defineRpc({
  method: PlatformSMSProviders.method.patchSMSProvider,
  permission: 'iam.sms.write',
  async handle(request, call) {
    const { id } = parseWith(idInput, request);
    const { changes, type, regenerateSigningKey } = parsePatch(request.smsProvider);
    const { state } = await readProvider(call, SMS_PROVIDERS, id);
    if (type !== undefined && type !== state.providerType) {
      throw validationFailed([{ field: `smsProvider.${type}`, description: `the provider is of type ${state.providerType}; its type cannot change` }]);
    }
    if (regenerateSigningKey && state.providerType !== 'generic') {
      throw validationFailed([{ field: 'smsProvider.regenerateSigningKey', description: 'only generic providers have a signing key' }]);
    }
    if (changes.url !== undefined) await requireAllowedUrl(call, changes.url, 'smsProvider.generic.url');
    if (changes.baseUrl !== undefined) await requireAllowedUrl(call, changes.baseUrl, 'smsProvider.twilio.baseUrl');
    const signingKey = regenerateSigningKey ? randomAlphanumeric(SIGNING_KEY_LENGTH) : undefined;
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      patchSmsProvider,
      { providerId: id, changes: { ...changes, ...(signingKey === undefined ? {} : { signingKey }), ...(type === undefined ? {} : { providerType: type }) } },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details), ...(signingKey === undefined ? {} : { signingKey }) };
  },
});
