/**
 * Email and phone verification by a code (issue 14):
 * - SendEmailCode / SendPhoneCode: POST /resources/v3alpha/users/{id}/email/_send_code and
 *   …/phone/_send_code: a code to the user's address by mail / SMS through the durable outbox
 *   (src/query/contact-verification.ts). 400 FailedPrecondition `delivery.mail_unavailable` /
 *   `delivery.sms_unavailable` when the instance cannot deliver, `user.email_missing` /
 *   `user.phone_missing`, `user.email.already_verified` / `user.phone.already_verified`.
 * - VerifyEmailCode / VerifyPhoneCode: POST …/email/_verify {verificationCode} and
 *   …/phone/_verify: the pending, unexpired code of the current address marks it verified
 *   (single use); 400 `user.<channel>.code_invalid` / `.code_expired` naming
 *   `<channel>.verificationCode`.
 * The user themself or a caller with `user.write`; both count against the password limit of the
 * user (TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME), so codes cannot be guessed at speed.
 * VerifyEmail / VerifyPhone (verify-contact.ts) stay the administrator's mark without a code.
 */
import { z } from 'zod';
import { AppError, failedPrecondition, invalidArgument, notFound, userKind, type AggregateRecord, type ContactChannel, type User } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { sendContactVerificationCode, verifyContactVerificationCode } from '../../../query/contact-verification.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor } from './shared.js';

const actionInput = z.object({ id: resourceId });
const code = z.object({ verificationCode: z.string().trim().min(1).max(64) }, 'required');
const emailInput = z.object({ id: resourceId, email: code });
const phoneInput = z.object({ id: resourceId, phone: code });

/** The human user: the caller themself, or one the caller may write. */
async function requireHumanFor(call: CallContext, id: string): Promise<AggregateRecord<User>> {
  const user = id === call.caller.userId ? await readOwned(call, userKind, id) : await requireUserFor(call, id, 'user.write');
  if (user === undefined) throw notFound('user.not_found', 'user not found');
  if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'only human users have an email address and a phone number');
  return user;
}

async function countAttempt(call: CallContext, id: string): Promise<void> {
  await call.services.limits?.consume(call.instance.id, 'passwordLoginName', `${call.instance.id}\u0000user:${id}`);
}

function targetOf(call: CallContext, user: AggregateRecord<User>, id: string) {
  return { instanceId: call.instance.id, orgId: user.state.orgId, userId: id, creator: call.caller.userId };
}

async function sendCode(call: CallContext, id: string, channel: ContactChannel) {
  const user = await requireHumanFor(call, id);
  await countAttempt(call, id);
  return { details: toDetails(await sendContactVerificationCode(call.services.actors, call.services.config, targetOf(call, user, id), channel)) };
}

async function verifyCode(call: CallContext, id: string, channel: ContactChannel, verificationCode: string) {
  const user = await requireHumanFor(call, id);
  await countAttempt(call, id);
  try {
    return { details: toDetails(await verifyContactVerificationCode(call.services.actors, targetOf(call, user, id), channel, verificationCode)) };
  } catch (error) {
    if (error instanceof AppError && error.kind === 'invalid_argument') {
      throw invalidArgument(error.code, error.message, { violations: [{ field: `${channel}.verificationCode`, description: error.message }] });
    }
    throw error;
  }
}

export const sendEmailCodeRpc = defineRpc({
  method: PlatformUsers.method.sendEmailCode,
  permission: 'authenticated',
  handle: (request, call) => sendCode(call, parseWith(actionInput, request).id, 'email'),
});

export const sendPhoneCodeRpc = defineRpc({
  method: PlatformUsers.method.sendPhoneCode,
  permission: 'authenticated',
  handle: (request, call) => sendCode(call, parseWith(actionInput, request).id, 'phone'),
});

export const verifyEmailCodeRpc = defineRpc({
  method: PlatformUsers.method.verifyEmailCode,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, email } = parseWith(emailInput, request);
    return verifyCode(call, id, 'email', email.verificationCode);
  },
});

export const verifyPhoneCodeRpc = defineRpc({
  method: PlatformUsers.method.verifyPhoneCode,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, phone } = parseWith(phoneInput, request);
    return verifyCode(call, id, 'phone', phone.verificationCode);
  },
});
