/** Read shape of an SMS provider (never the signing key or the auth token); its sending settings are src/delivery/sms.ts `smsSettingsOf`. */
import { create } from '@bufbuild/protobuf';
import { type AggregateRecord, detailsOf, type SmsProvider } from '../../../../actors/index.js';
import { TWILIO_BASE_URL } from '../../../delivery/sms.js';
import { GetSMSProviderSchema, SmsProviderState, type GetSMSProvider } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails } from '../../shared/convert.js';
import { lastErrorOf } from '../../shared/providers.js';
import { requireAllowedHost } from '../../shared/providers.js';

/** Generic providers' signing keys: 36 characters of [A-Za-z0-9], like targets'. */
export const SIGNING_KEY_LENGTH = 36;

export function toGetSmsProvider(record: AggregateRecord<SmsProvider>, activeId: string): GetSMSProvider {
  const s = record.state;
  return create(GetSMSProviderSchema, {
    details: toDetails(detailsOf(record)),
    smsProvider: {
      description: s.description,
      providerType:
        s.providerType === 'generic'
          ? { case: 'generic', value: { url: s.url } }
          : { case: 'twilio', value: { accountSid: s.accountSid, hasAuthToken: s.authToken !== '', senderNumber: s.senderNumber, baseUrl: s.baseUrl } },
    },
    state: record.id === activeId ? SmsProviderState.ACTIVE : SmsProviderState.INACTIVE,
    ...lastErrorOf(record.state),
  });
}

/** The outbound policy check of the URL a provider will be called at. */
export async function requireAllowedUrl(call: CallContext, url: string, field: string): Promise<void> {
  await requireAllowedHost(call, new URL(url === '' ? TWILIO_BASE_URL : url).hostname, field);
}
