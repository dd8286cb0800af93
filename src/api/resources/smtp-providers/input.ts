/**
 * Shape rules of an SMTP provider at the edge (zod; field paths in JSON names): host 1..253
 * characters of a host name or IP address, port 1..65535, a TLS mode, sender and reply-to
 * email addresses, texts of at most 200 characters. The host must be allowed by the outbound
 * policy (checked by the handlers after the shape).
 */
import { z } from 'zod';
import type { SmtpProvider, SmtpTlsMode } from '../../../../actors/index.js';
import { SmtpTlsMode as WireTlsMode } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { emailAddress } from '../users/input.js';

export const TLS_MODES: Readonly<Record<number, SmtpTlsMode>> = { [WireTlsMode.NONE]: 'none', [WireTlsMode.STARTTLS]: 'starttls', [WireTlsMode.TLS]: 'tls' };
export const WIRE_TLS_MODES: Readonly<Record<SmtpTlsMode, WireTlsMode>> = { none: WireTlsMode.NONE, starttls: WireTlsMode.STARTTLS, tls: WireTlsMode.TLS };

const text = z.string().trim().max(200, 'must be at most 200 characters');
const host = z
  .string()
  .trim()
  .min(1, 'required')
  .max(253, 'must be at most 253 characters')
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]+|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)$/, 'must be a host name or an IP address');
const port = z.number().int().min(1, 'must be 1..65535').max(65535, 'must be 1..65535');
const tlsMode = z
  .number()
  .int()
  .refine((v) => TLS_MODES[v] !== undefined, 'must be SMTP_TLS_MODE_NONE, SMTP_TLS_MODE_STARTTLS or SMTP_TLS_MODE_TLS')
  .transform((v) => TLS_MODES[v]!);
const password = z.string().max(200, 'must be at most 200 characters');
const replyTo = z.union([z.literal(''), emailAddress], 'must be an email address or empty');

const fields = {
  description: text,
  host,
  port,
  tlsMode,
  user: text,
  password,
  senderAddress: emailAddress,
  senderName: text,
  replyToAddress: replyTo,
};

export const createInput = z.object({ smtpProvider: z.object(fields, 'required') });
export const patchInput = z.object({
  smtpProvider: z
    .object({
      description: fields.description.optional(),
      host: fields.host.optional(),
      port: fields.port.optional(),
      tlsMode: fields.tlsMode.optional(),
      user: fields.user.optional(),
      password: fields.password.optional(),
      senderAddress: fields.senderAddress.optional(),
      senderName: fields.senderName.optional(),
      replyToAddress: fields.replyToAddress.optional(),
    })
    .optional(),
});

type Parsed = z.infer<typeof createInput>['smtpProvider'];

/** The domain fields of a parsed provider (plaintext password). */
export function toDomain(p: Parsed): SmtpProvider {
  const { replyToAddress, ...rest } = p;
  return { ...rest, replyTo: replyToAddress };
}

export function toDomainPatch(p: Partial<Parsed>): Partial<SmtpProvider> {
  const { replyToAddress, ...rest } = p;
  const out: Record<string, unknown> = { ...rest };
  if (replyToAddress !== undefined) out.replyTo = replyToAddress;
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out as Partial<SmtpProvider>;
}
