/**
 * SMS delivery through an HTTP provider, with the outbound request helper (so the outbound
 * policy applies to the address connected to, and redirects are never followed):
 * - generic: a JSON POST `{recipient, text, instanceId, providerId}` signed like target calls
 *   (`Platform-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>." + body)>`);
 * - twilio: Twilio's Messages API, a form POST (To, From, Body) with basic authentication.
 * Any 2xx answer is a success; the status and the start of the answer are reported.
 */
import type { SmsProvider } from '../../actors/index.js';
import { outboundRequest, OutboundAddressRefused, readBody, type OutboundPolicy } from '../http/outbound-policy.js';
import { SIGNATURE_HEADER, signatureHeader } from '../executions/signature.js';
import { clip, type DeliveryResult } from './smtp.js';

export const TWILIO_BASE_URL = 'https://api.twilio.com';

export type SmsSettings =
  | { readonly type: 'generic'; readonly url: string; readonly signingKey: string }
  | { readonly type: 'twilio'; readonly baseUrl: string; readonly accountSid: string; readonly authToken: string; readonly senderNumber: string };

/** The sending settings of a stored provider, secrets opened (the outbox and the provider test send with them). */
export function smsSettingsOf(s: SmsProvider, open: (sealed: string) => string): SmsSettings {
  const opened = (sealed: string) => (sealed === '' ? '' : open(sealed));
  return s.providerType === 'generic'
    ? { type: 'generic', url: s.url, signingKey: opened(s.signingKey) }
    : { type: 'twilio', baseUrl: s.baseUrl, accountSid: s.accountSid, authToken: opened(s.authToken), senderNumber: s.senderNumber };
}

export interface SmsMessage {
  readonly to: string;
  readonly text: string;
  readonly instanceId: string;
  readonly providerId: string;
}

const TIMEOUT_MS = 15_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/** The URL a provider is called at (for the policy check when it is saved, too). */
export function smsEndpoint(settings: SmsSettings): string {
  if (settings.type === 'generic') return settings.url;
  const base = (settings.baseUrl === '' ? TWILIO_BASE_URL : settings.baseUrl).replace(/\/+$/, '');
  return `${base}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
}

export async function sendSms(settings: SmsSettings, message: SmsMessage, policy: OutboundPolicy, nowSeconds: number): Promise<DeliveryResult> {
  let headers: Record<string, string>;
  let body: string;
  if (settings.type === 'generic') {
    body = JSON.stringify({ recipient: message.to, text: message.text, instanceId: message.instanceId, providerId: message.providerId });
    headers = { 'content-type': 'application/json', [SIGNATURE_HEADER]: signatureHeader(body, [settings.signingKey], nowSeconds) };
  } else {
    body = new URLSearchParams({ To: message.to, From: settings.senderNumber, Body: message.text }).toString();
    const basic = Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64');
    headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` };
  }
  try {
    const response = await outboundRequest(smsEndpoint(settings), { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) }, policy);
    const status = response.statusCode ?? 0;
    const answer = await readBody(response, MAX_ANSWER_BYTES, () => new Error('the answer is too large')).then((b) => b.toString('utf8'), (e: unknown) => (e instanceof Error ? e.message : ''));
    return { success: status >= 200 && status < 300, answer: clip(`${status} ${answer}`.trim()) };
  } catch (error) {
    return { success: false, answer: clip(error instanceof OutboundAddressRefused ? error.message : error instanceof Error ? error.message : String(error)) };
  }
}
