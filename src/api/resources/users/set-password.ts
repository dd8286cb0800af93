/**
 * SetPassword: POST /resources/v3alpha/users/{id}/_set_password, body {password,
 * changeRequired, currentPassword?, verificationCode?}. With `verificationCode` (a reset code
 * from RequestPasswordReset) the password is set only if the code matches, and every session of
 * the user ends. An administrator with `user.credential.write` sets any
 * human user's password; a user changes their own by proving the current one (a wrong
 * current password counts as a failed password check). The new password must meet the
 * instance's complexity policy (400 `user.password.complexity` on `password.password`).
 */
import { z } from 'zod';
import { type AggregateRecord, AppError, failedPrecondition, invalidArgument, notFound, setUserPassword, type User, userKind } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { hashPassword, requirePasswordComplexity } from '../../../crypto/password.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { readUserSettings, verifyUserPassword } from '../../../query/user-auth.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { resetPasswordByCode } from '../../../query/password-reset.js';
import { password } from './input.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({
  id: resourceId,
  password: z.object(
    { password, changeRequired: z.boolean(), currentPassword: password.optional(), verificationCode: z.string().trim().min(1).max(64).optional() },
    'required',
  ),
});

export const setPasswordRpc = defineRpc({
  method: PlatformUsers.method.setPassword,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, password: body } = parseWith(input, request);
    if (body.verificationCode !== undefined) return { details: toDetails(await resetWithCode(call, id, body.password, body.verificationCode)) };
    const selfService = body.currentPassword !== undefined && id === call.caller.userId;
    const user = selfService ? await readSelf(call, id) : await requireUserFor(call, id, 'user.credential.write');
    if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'only human users have a password');
    const settings = await readUserSettings(call.services.actors, call.instance.id);
    requirePasswordComplexity(body.password, settings.passwordComplexity, 'password.password');
    let verifiedHash: string | undefined;
    if (selfService) {
      const check = await verifyUserPassword(call.services.actors, call.instance.id, id, body.currentPassword!, { creator: id });
      if (check.outcome !== 'valid') {
        throw invalidArgument('user.password.invalid', 'the current password is wrong', {
          violations: [{ field: 'password.currentPassword', description: 'does not match' }],
        });
      }
      verifiedHash = user.state.passwordHash;
    }
    const passwordHash = await hashPassword(body.password);
    const details = await call.services.actors.ask(
      userActor(call, user),
      setUserPassword,
      {
        orgId: user.state.orgId,
        userId: id,
        passwordHash,
        // a self-service change is never "required to change again"
        changeRequired: selfService ? false : body.changeRequired,
        ...(verifiedHash === undefined ? {} : { verifiedHash }),
      },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});

/**
 * Reset with a mailed code: the user themself or a caller with `user.credential.write`; counts
 * against the login UI's password limits for the user (TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME).
 * A wrong or used code is 400 `user.password.code_invalid`, an expired one
 * `user.password.code_expired`, both naming `password.verificationCode`.
 */
async function resetWithCode(call: CallContext, id: string, newPassword: string, code: string) {
  const user = id === call.caller.userId ? await readSelf(call, id) : await requireUserFor(call, id, 'user.credential.write');
  if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'only human users have a password');
  await call.services.limits?.consume(call.instance.id, 'passwordLoginName', `${call.instance.id}\u0000user:${id}`);
  try {
    const done = await resetPasswordByCode(call.services.actors, { instanceId: call.instance.id, orgId: user.state.orgId, userId: id, creator: call.caller.userId }, code, newPassword, 'password.password');
    return done.details;
  } catch (error) {
    if (error instanceof AppError && error.code.startsWith('user.password.code_')) {
      throw invalidArgument(error.code, error.message, { violations: [{ field: 'password.verificationCode', description: error.message }] });
    }
    throw error;
  }
}

async function readSelf(call: CallContext, id: string): Promise<AggregateRecord<User>> {
  const record = await readOwned(call, userKind, id);
  if (record === undefined) throw notFound('user.not_found', 'user not found');
  return record;
}
