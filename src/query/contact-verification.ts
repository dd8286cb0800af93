/**
 * Email and phone verification by a code (issue 14), shared by the user API, registration and
 * email/phone changes, and the login UI's verification step. The code is a one-time code
 * (one-time-code.ts: 8 digits from a CSPRNG), lives TESSERA_CONTACT_CODE_TTL_MS, is recorded
 * only as a SHA-256 digest over the user, the address and the code, and travels by mail or SMS
 * through the durable outbox, queued in the same append as the digest.
 */
import { failedPrecondition, sendContactCode, userKind, verifyContactCode, type ActorSystem, type ContactChannel, type HumanUser, type ResourceDetails } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { canSendMail, type DefaultSmtpConfig } from '../delivery/default-smtp.js';
import { newOneTimeCode, oneTimeCodeDigest } from './one-time-code.js';
import { canSendSms } from './otp-message.js';
import { requireMail } from './password-reset.js';

export type ContactCodeConfig = DefaultSmtpConfig & Pick<Config, 'contactCodeTtlMs'>;

export interface ContactTarget {
  readonly instanceId: string;
  readonly orgId: string;
  readonly userId: string;
  readonly creator: string;
}

/** The address of a channel ('' when the user has none). */
export function addressOf(user: HumanUser, channel: ContactChannel): string {
  return channel === 'email' ? user.email.address : user.phone.number;
}

/** The digest a verification code is recorded as: bound to the channel, the user and the address. */
export function contactCodeDigest(channel: ContactChannel, userId: string, address: string, code: string): string {
  return oneTimeCodeDigest(`${channel}-verification`, `${userId}\u0000${address}`, code);
}

/** Whether a code can be delivered on the channel for the instance. */
export function canDeliver(actors: ActorSystem, config: DefaultSmtpConfig, instanceId: string, channel: ContactChannel): Promise<boolean> {
  return channel === 'email' ? canSendMail(actors, config, instanceId) : canSendSms(actors, instanceId);
}

/** 400 FailedPrecondition `delivery.mail_unavailable` / `delivery.sms_unavailable` unless the channel can deliver. */
async function requireDelivery(actors: ActorSystem, config: DefaultSmtpConfig, instanceId: string, channel: ContactChannel): Promise<void> {
  if (channel === 'email') return requireMail(actors, config, instanceId);
  if (!(await canSendSms(actors, instanceId))) throw failedPrecondition('delivery.sms_unavailable', 'this instance cannot send SMS: activate an SMS provider');
}

async function readHuman(actors: ActorSystem, target: ContactTarget): Promise<HumanUser> {
  const record = await actors.readRecord(target.instanceId, userKind, target.userId);
  if (record === undefined || record.state.type !== 'human') throw failedPrecondition('user.not_human', 'only human users have an email address and a phone number');
  return record.state;
}

function messageOf(channel: ContactChannel, code: string, ttlMs: number): { subject: string; text: string } {
  const minutes = Math.round(ttlMs / 60_000);
  if (channel === 'phone') return { subject: '', text: `Your verification code is ${code}. It is valid for ${minutes} minutes.` };
  return {
    subject: 'Verify your email address',
    text: `Your email verification code is ${code}\n\nIt is valid for ${minutes} minutes and can be used once. If you did not ask for it, ignore this mail.\n`,
  };
}

/** Records a new verification code for the user's current address and queues the message carrying it. */
export async function sendContactVerificationCode(actors: ActorSystem, config: ContactCodeConfig, target: ContactTarget, channel: ContactChannel): Promise<ResourceDetails> {
  await requireDelivery(actors, config, target.instanceId, channel);
  const address = addressOf(await readHuman(actors, target), channel);
  if (address === '') throw failedPrecondition(`user.${channel}_missing`, `the user has no ${channel}`);
  const code = newOneTimeCode();
  const message = messageOf(channel, code, config.contactCodeTtlMs);
  return actors.ask(
    { kind: 'org', instanceId: target.instanceId, orgId: target.orgId },
    sendContactCode,
    {
      orgId: target.orgId,
      userId: target.userId,
      channel,
      address,
      codeHash: contactCodeDigest(channel, target.userId, address, code),
      expiresAt: actors.clock.now() + config.contactCodeTtlMs,
      messageId: actors.ids.next(),
      message: { subject: message.subject, text: actors.sealer.seal(message.text), purpose: `${channel}.verification` },
    },
    { creator: target.creator },
  );
}

/**
 * Sends a code when the address is unverified and the channel can deliver (registration, an
 * address change); answers the details of the append, undefined when none was sent.
 */
export async function sendContactCodeIfPossible(actors: ActorSystem, config: ContactCodeConfig, target: ContactTarget, channel: ContactChannel): Promise<ResourceDetails | undefined> {
  const user = await actors.readRecord(target.instanceId, userKind, target.userId);
  if (user === undefined || user.state.type !== 'human') return undefined;
  const verified = channel === 'email' ? user.state.email.verified : user.state.phone.verified;
  if (verified || addressOf(user.state, channel) === '' || !(await canDeliver(actors, config, target.instanceId, channel))) return undefined;
  return sendContactVerificationCode(actors, config, target, channel);
}

/**
 * Marks the user's current address verified if the code is its pending, unexpired one:
 * 400 `user.<channel>.code_invalid` (wrong, used, or for another address) or `.code_expired`.
 */
export async function verifyContactVerificationCode(actors: ActorSystem, target: ContactTarget, channel: ContactChannel, code: string): Promise<ResourceDetails> {
  const address = addressOf(await readHuman(actors, target), channel);
  return actors.ask(
    { kind: 'org', instanceId: target.instanceId, orgId: target.orgId },
    verifyContactCode,
    { orgId: target.orgId, userId: target.userId, channel, address, codeHash: contactCodeDigest(channel, target.userId, address, code) },
    { creator: target.creator },
  );
}
