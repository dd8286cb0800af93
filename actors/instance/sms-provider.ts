/**
 * The SMS provider aggregate (seed 000 PlatformSMSProviders): an HTTP provider, either a
 * generic JSON webhook signed with the provider's key or Twilio's Messages API. Fields of the
 * other type are ''. The signing key and the auth token are recorded sealed.
 */
import { activationKind, providerKind, type ProviderFamily } from './provider-family.js';

export type SmsProviderType = 'generic' | 'twilio';

export interface SmsProvider {
  readonly description: string;
  readonly providerType: SmsProviderType;
  /** generic: the webhook URL. */
  readonly url: string;
  /** generic: sealed HMAC-SHA256 key. */
  readonly signingKey: string;
  /** twilio */
  readonly accountSid: string;
  /** twilio: sealed. */
  readonly authToken: string;
  readonly senderNumber: string;
  /** twilio: '' means https://api.twilio.com. */
  readonly baseUrl: string;
}

export const smsProviderKind = providerKind<SmsProvider>('sms');

export const SMS_PROVIDERS: ProviderFamily<SmsProvider> = {
  name: 'sms',
  kind: smsProviderKind,
  activation: activationKind('sms'),
  sealed: ['signingKey', 'authToken'],
  immutable: ['providerType'],
  notFoundCode: 'sms_provider.not_found',
};
