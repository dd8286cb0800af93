/**
 * Login codes of OTP by email and by SMS (issue 14), the same mechanism as the password reset
 * code (one-time-code.ts, password-reset.ts): an 8-digit code from a CSPRNG, bound to the user
 * and the channel, recorded only as a SHA-256 digest with its expiry (TESSERA_OTP_CODE_TTL_MS),
 * and sent through the durable outbox in the same append. A check records its outcome on the
 * user (single use, failures counted towards `maxOtpAttempts`).
 */
import {
  failedPrecondition,
  recordOtpCodeCheck,
  sendOtpCode,
  SMS_PROVIDERS,
  type ActorSystem,
  type OtpChannel,
  type OtpCheckRecorded,
} from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { canSendMail, type DefaultSmtpConfig } from '../delivery/default-smtp.js';
import { newOneTimeCode, oneTimeCodeDigest } from './one-time-code.js';
import { requireMail } from './password-reset.js';

export type OtpMessageConfig = DefaultSmtpConfig & Pick<Config, 'otpCodeTtlMs'>;

interface UserTarget {
  readonly instanceId: string;
  readonly orgId: string;
  readonly userId: string;
  readonly creator: string;
}

function digestOf(channel: OtpChannel, userId: string, code: string): string {
  return oneTimeCodeDigest(`otp-${channel}`, userId, code);
}

/** Whether the instance has an active SMS provider. */
export async function canSendSms(actors: ActorSystem, instanceId: string): Promise<boolean> {
  const activeId = (await actors.readRecord(instanceId, SMS_PROVIDERS.activation, instanceId))?.state.activeId ?? '';
  return activeId !== '' && (await actors.readRecord(instanceId, SMS_PROVIDERS.kind, activeId)) !== undefined;
}

/** Whether codes of this channel can be sent for the instance. */
export async function canSendOtp(actors: ActorSystem, config: DefaultSmtpConfig, instanceId: string, channel: OtpChannel): Promise<boolean> {
  return channel === 'email' ? canSendMail(actors, config, instanceId) : canSendSms(actors, instanceId);
}

/** 400 FailedPrecondition `delivery.mail_unavailable` / `delivery.sms_unavailable` when the channel cannot deliver. */
export async function requireOtpDelivery(actors: ActorSystem, config: DefaultSmtpConfig, instanceId: string, channel: OtpChannel): Promise<void> {
  if (channel === 'email') return requireMail(actors, config, instanceId);
  if (!(await canSendSms(actors, instanceId))) {
    throw failedPrecondition('delivery.sms_unavailable', 'this instance cannot send SMS: create and activate an SMS provider (/resources/v3alpha/sms_providers)');
  }
}

/**
 * Records a new login code for the user and queues the message carrying it; answers where it
 * goes. `enrol`: the code sets the factor up during login (the user need not have it yet).
 */
export async function sendOtpLoginCode(actors: ActorSystem, config: OtpMessageConfig, target: UserTarget, channel: OtpChannel, enrol = false): Promise<{ readonly to: string }> {
  await requireOtpDelivery(actors, config, target.instanceId, channel);
  const code = newOneTimeCode();
  const minutes = Math.max(1, Math.round(config.otpCodeTtlMs / 60_000));
  const text =
    channel === 'sms'
      ? `Your sign-in code is ${code}. It is valid for ${minutes} minutes.`
      : `Your sign-in code is ${code}\n\nIt is valid for ${minutes} minutes and can be used once. If you did not try to sign in, change your password.\n`;
  return actors.ask(
    { kind: 'org', instanceId: target.instanceId, orgId: target.orgId },
    sendOtpCode,
    {
      orgId: target.orgId,
      userId: target.userId,
      channel,
      codeHash: digestOf(channel, target.userId, code),
      expiresAt: actors.clock.now() + config.otpCodeTtlMs,
      messageId: actors.ids.next(),
      message: { subject: 'Your sign-in code', text: actors.sealer.seal(text), purpose: `otp.${channel}` },
      ...(enrol ? { enrol } : {}),
    },
    { creator: target.creator },
  );
}

/**
 * Checks a presented code against the user's pending one and records the outcome (see
 * recordOtpCodeCheck); `enrol`: a valid enrolment code adds the factor.
 */
export async function checkOtpLoginCode(
  actors: ActorSystem,
  target: UserTarget,
  channel: OtpChannel,
  code: string,
  enrol = false,
): Promise<OtpCheckRecorded & { readonly expired: boolean }> {
  return actors.ask(
    { kind: 'org', instanceId: target.instanceId, orgId: target.orgId },
    recordOtpCodeCheck,
    { orgId: target.orgId, userId: target.userId, channel, codeHash: digestOf(channel, target.userId, code), ...(enrol ? { enrol } : {}) },
    { creator: target.creator },
  );
}
