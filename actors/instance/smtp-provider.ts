/**
 * The SMTP provider aggregate (seed 000 PlatformSMTPProviders): where an instance's mail is
 * delivered from. The password is recorded sealed ('' when the server needs none).
 */
import { activationKind, providerKind, type ProviderFamily } from './provider-family.js';

/** `none`: plain text; `starttls`: upgrade required; `tls`: TLS from the first byte. */
export type SmtpTlsMode = 'none' | 'starttls' | 'tls';

export interface SmtpProvider {
  readonly description: string;
  readonly host: string;
  readonly port: number;
  readonly tlsMode: SmtpTlsMode;
  readonly user: string;
  /** Sealed; '' when none. */
  readonly password: string;
  readonly senderAddress: string;
  readonly senderName: string;
  readonly replyTo: string;
}

export const smtpProviderKind = providerKind<SmtpProvider>('smtp');

export const SMTP_PROVIDERS: ProviderFamily<SmtpProvider> = {
  name: 'smtp',
  kind: smtpProviderKind,
  activation: activationKind('smtp'),
  sealed: ['password'],
  immutable: [],
  notFoundCode: 'smtp_provider.not_found',
};
