/**
 * Shape rules of an SMS provider at the edge: a description of at most 200 characters and
 * exactly one provider type — generic (an http(s) URL of 1..1000 characters) or twilio
 * (account SID 1..100 characters, auth token 1..200, sender number 1..50, base URL empty or
 * http(s)). The URL's host must be allowed by the outbound policy (checked by the handlers).
 */
import { type FieldViolation, type SmsProvider, validationFailed } from '../../../../actors/index.js';
import type { PatchSMSProvider, SMSProvider } from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';

/** The domain fields of a new provider, without its signing key. */
export type SmsProviderInput = Omit<SmsProvider, 'signingKey'>;

export function parseCreate(provider: SMSProvider | undefined): SmsProviderInput {
  if (provider === undefined) throw validationFailed([{ field: 'smsProvider', description: 'required' }]);
  const v: FieldViolation[] = [];
  const description = text(provider.description, 'smsProvider.description', 200, false, v);
  const type = provider.providerType;
  const empty = { url: '', accountSid: '', authToken: '', senderNumber: '', baseUrl: '' };
  let fields: SmsProviderInput | undefined;
  if (type.case === 'generic') {
    fields = { description, providerType: 'generic', ...empty, url: httpUrl(type.value.url, 'smsProvider.generic.url', true, v) };
  } else if (type.case === 'twilio') {
    const t = type.value;
    fields = {
      description,
      providerType: 'twilio',
      url: '',
      accountSid: text(t.accountSid, 'smsProvider.twilio.accountSid', 100, true, v),
      authToken: text(t.authToken, 'smsProvider.twilio.authToken', 200, true, v),
      senderNumber: text(t.senderNumber, 'smsProvider.twilio.senderNumber', 50, true, v),
      baseUrl: httpUrl(t.baseUrl, 'smsProvider.twilio.baseUrl', false, v),
    };
  } else {
    v.push({ field: 'smsProvider.generic', description: 'exactly one of generic or twilio is required' });
  }
  if (v.length > 0 || fields === undefined) throw validationFailed(v);
  return fields;
}

export interface SmsPatchInput {
  readonly changes: Partial<SmsProvider>;
  /** The member set (its type must be the provider's). */
  readonly type?: 'generic' | 'twilio';
  readonly regenerateSigningKey: boolean;
}

export function parsePatch(provider: PatchSMSProvider | undefined): SmsPatchInput {
  if (provider === undefined) return { changes: {}, regenerateSigningKey: false };
  const v: FieldViolation[] = [];
  const changes: Record<string, string> = {};
  if (provider.description !== undefined) changes.description = text(provider.description, 'smsProvider.description', 200, false, v);
  const type = provider.providerType;
  if (type.case === 'generic') changes.url = httpUrl(type.value.url, 'smsProvider.generic.url', true, v);
  if (type.case === 'twilio') {
    const t = type.value;
    if (t.accountSid !== undefined) changes.accountSid = text(t.accountSid, 'smsProvider.twilio.accountSid', 100, true, v);
    if (t.authToken !== undefined) changes.authToken = text(t.authToken, 'smsProvider.twilio.authToken', 200, true, v);
    if (t.senderNumber !== undefined) changes.senderNumber = text(t.senderNumber, 'smsProvider.twilio.senderNumber', 50, true, v);
    if (t.baseUrl !== undefined) changes.baseUrl = httpUrl(t.baseUrl, 'smsProvider.twilio.baseUrl', false, v);
  }
  if (v.length > 0) throw validationFailed(v);
  return { changes, ...(type.case === undefined ? {} : { type: type.case }), regenerateSigningKey: provider.regenerateSigningKey };
}

function text(raw: string, field: string, max: number, required: boolean, v: FieldViolation[]): string {
  const value = raw.trim();
  if (required && value === '') v.push({ field, description: 'required' });
  else if (value.length > max) v.push({ field, description: `must be at most ${max} characters` });
  return value;
}

function httpUrl(raw: string, field: string, required: boolean, v: FieldViolation[]): string {
  const value = raw.trim();
  if (value === '') {
    if (required) v.push({ field, description: 'required' });
    return '';
  }
  if (value.length > 1000) v.push({ field, description: 'must be at most 1000 characters' });
  else if (!isHttpUri(value)) v.push({ field, description: 'must be an absolute http or https URI' });
  return value;
}

function isHttpUri(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
