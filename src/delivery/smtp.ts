/**
 * Mail delivery through an SMTP provider with nodemailer (no hand-written SMTP). The server's
 * host is resolved and checked against the outbound policy first and the connection goes to
 * the checked address (the name is kept for TLS server name verification).
 */
import { isIP } from 'node:net';
import type { SmtpTlsMode } from '../../actors/index.js';
import { OutboundAddressRefused, type OutboundPolicy } from '../http/outbound-policy.js';
import { smtpSpan } from '../observability/tracing.js';
import { lazyModule } from '../runtime/lazy-module.js';
import { resolveAllowed } from './outbound-host.js';

export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  readonly tlsMode: SmtpTlsMode;
  readonly user: string;
  /** Plaintext ('' when none). */
  readonly password: string;
  readonly senderAddress: string;
  readonly senderName: string;
  readonly replyTo: string;
}

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** What a provider answered: success with its last reply, or the error it gave. */
export interface DeliveryResult {
  readonly success: boolean;
  /** The server's reply or the error, at most 500 characters. */
  readonly answer: string;
  readonly messageId?: string;
}

const TIMEOUT_MS = 15_000;

/** nodemailer is loaded with the first mail: a node that sends none keeps ~10 MB less resident (#13). */
const nodemailerModule = lazyModule(() => import('nodemailer'));

/** Sends one mail; the answer says whether the server took it (traced as a client span `smtp send`). */
export function sendMail(settings: SmtpSettings, message: MailMessage, policy: OutboundPolicy): Promise<DeliveryResult> {
  return smtpSpan(settings.host, settings.port, () => deliver(settings, message, policy));
}

async function deliver(settings: SmtpSettings, message: MailMessage, policy: OutboundPolicy): Promise<DeliveryResult> {
  let address: string;
  try {
    address = await resolveAllowed(settings.host, policy);
  } catch (error) {
    return { success: false, answer: clip(error instanceof OutboundAddressRefused ? error.message : `cannot resolve ${settings.host}: ${errorText(error)}`) };
  }
  const { default: nodemailer } = await nodemailerModule();
  const transport = nodemailer.createTransport({
    host: address,
    port: settings.port,
    secure: settings.tlsMode === 'tls',
    requireTLS: settings.tlsMode === 'starttls',
    ignoreTLS: settings.tlsMode === 'none',
    ...(settings.user === '' ? {} : { auth: { user: settings.user, pass: settings.password } }),
    ...(isIP(settings.host) === 0 ? { tls: { servername: settings.host } } : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  try {
    const info = await transport.sendMail({
      from: settings.senderName === '' ? settings.senderAddress : { name: settings.senderName, address: settings.senderAddress },
      to: message.to,
      ...(settings.replyTo === '' ? {} : { replyTo: settings.replyTo }),
      subject: message.subject,
      text: message.text,
    });
    return { success: true, answer: clip(String(info.response ?? '')), messageId: String(info.messageId ?? '') };
  } catch (error) {
    // nodemailer's message names the step (login, STARTTLS, …) and usually quotes the reply.
    const response = (error as { response?: unknown }).response;
    const text = errorText(error);
    const quoted = typeof response !== 'string' || response === '' || text.includes(response);
    return { success: false, answer: clip(quoted ? text : `${text} (server: ${response})`) };
  } finally {
    transport.close();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
