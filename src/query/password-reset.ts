/**
 * Password reset by a code sent by mail (issue 14), shared by the login UI and the user API.
 * The code is random (8 digits from a CSPRNG), lives TESSERA_PASSWORD_RESET_CODE_TTL_MS, is bound
 * to the user (its digest covers the user id) and recorded only as a SHA-256 digest; the mail
 * carrying it is queued through the durable outbox in the same append. A reset checks the new
 * password against the instance's complexity policy, sets it, clears the code (single use) and
 * ends every session of the user in the same append.
 */
import { failedPrecondition, idTerm, requestPasswordReset, resetPasswordWithCode, type ActorSystem, type PasswordResetDone } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { requirePasswordComplexity, hashPassword } from '../crypto/password.js';
import { canSendMail, type DefaultSmtpConfig } from '../delivery/default-smtp.js';
import { newOneTimeCode, oneTimeCodeDigest } from './one-time-code.js';
import { readUserSettings } from './user-auth.js';

export type PasswordResetConfig = DefaultSmtpConfig & Pick<Config, 'passwordResetCodeTtlMs'>;

/** The digest a code is recorded as, bound to its user. */
export function resetCodeDigest(userId: string, code: string): string {
  return oneTimeCodeDigest('password-reset', userId, code);
}

/** 400 FailedPrecondition `delivery.mail_unavailable` unless the instance can send mail. */
export async function requireMail(actors: ActorSystem, config: DefaultSmtpConfig, instanceId: string): Promise<void> {
  if (!(await canSendMail(actors, config, instanceId))) {
    throw failedPrecondition('delivery.mail_unavailable', 'this instance cannot send mail: activate an SMTP provider or configure the default SMTP server (TESSERA_SMTP_HOST)');
  }
}

/** Records a new code for the user and queues the mail carrying it; answers the address. */
export async function sendPasswordResetCode(
  actors: ActorSystem,
  config: PasswordResetConfig,
  target: { readonly instanceId: string; readonly orgId: string; readonly userId: string; readonly creator: string },
): Promise<{ readonly to: string; readonly sequence: number; readonly changedAt: number }> {
  await requireMail(actors, config, target.instanceId);
  const code = newOneTimeCode();
  const minutes = Math.round(config.passwordResetCodeTtlMs / 60_000);
  const text = `Your password reset code is ${code}\n\nIt is valid for ${minutes} minutes and can be used once. If you did not ask to reset your password, ignore this mail.\n`;
  const result = await actors.ask(
    { kind: 'org', instanceId: target.instanceId, orgId: target.orgId },
    requestPasswordReset,
    {
      orgId: target.orgId,
      userId: target.userId,
      codeHash: resetCodeDigest(target.userId, code),
      expiresAt: actors.clock.now() + config.passwordResetCodeTtlMs,
      messageId: actors.ids.next(),
      message: { subject: 'Your password reset code', text: actors.sealer.seal(text), purpose: 'password.reset' },
    },
    { creator: target.creator },
  );
  return { to: result.to, sequence: result.details.sequence, changedAt: result.details.changeDate };
}

/**
 * Sets the new password if the code is the user's pending one and not expired (400 naming
 * `code`, or naming `newPassword` for the complexity policy) and ends the user's sessions.
 */
export async function resetPasswordByCode(
  actors: ActorSystem,
  target: { readonly instanceId: string; readonly orgId: string; readonly userId: string; readonly creator: string },
  code: string,
  newPassword: string,
  passwordField = 'newPassword',
): Promise<PasswordResetDone> {
  const settings = await readUserSettings(actors, target.instanceId);
  requirePasswordComplexity(newPassword, settings.passwordComplexity, passwordField);
  const passwordHash = await hashPassword(newPassword);
  const entries = await actors.indexes.readIndex(target.instanceId, { table: 'sessions', index: 'user', equals: idTerm(target.userId), limit: 10_000 });
  return actors.ask(
    { kind: 'org', instanceId: target.instanceId, orgId: target.orgId },
    resetPasswordWithCode,
    { orgId: target.orgId, userId: target.userId, codeHash: resetCodeDigest(target.userId, code), passwordHash, sessionIds: entries.map((e) => e.id) },
    { creator: target.creator },
  );
}
