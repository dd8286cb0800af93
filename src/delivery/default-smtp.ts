/**
 * The node's default SMTP server (TESSERA_SMTP_*), used for instances without an active SMTP
 * provider, and whether an instance can send mail at all (flows needing mail are hidden in the
 * login UI and answer 400 FailedPrecondition in the API when it cannot).
 */
import { SMTP_PROVIDERS, type ActorSystem } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import type { SmtpSettings } from './smtp.js';

export type DefaultSmtpConfig = Pick<Config, 'smtpHost' | 'smtpPort' | 'smtpTls' | 'smtpUser' | 'smtpPassword' | 'smtpFrom' | 'smtpFromName'>;

/** The node's default SMTP server from TESSERA_SMTP_*, or undefined when TESSERA_SMTP_HOST is unset. */
export function defaultSmtpOf(config: DefaultSmtpConfig): SmtpSettings | undefined {
  if (config.smtpHost === undefined || config.smtpFrom === undefined) return undefined;
  return {
    host: config.smtpHost,
    port: config.smtpPort,
    tlsMode: config.smtpTls,
    user: config.smtpUser,
    password: config.smtpPassword,
    senderAddress: config.smtpFrom,
    senderName: config.smtpFromName,
    replyTo: '',
  };
}

/** Whether mail can be sent for the instance: an active SMTP provider, or the node's default. */
export async function canSendMail(actors: ActorSystem, config: DefaultSmtpConfig, instanceId: string): Promise<boolean> {
  if (defaultSmtpOf(config) !== undefined) return true;
  const activeId = (await actors.readRecord(instanceId, SMTP_PROVIDERS.activation, instanceId))?.state.activeId ?? '';
  return activeId !== '' && (await actors.readRecord(instanceId, SMTP_PROVIDERS.kind, activeId)) !== undefined;
}
