/**
 * TOTP second factor of a human user (RFC 6238, through the otpauth library):
 * - AddTOTP: POST /resources/v3alpha/users/{id}/totp → {details, secret, uri}: a new secret
 *   (base32, returned only here; stored sealed with the node's master key) and its otpauth://
 *   URI; it replaces an unverified enrolment, 409 `user.totp.exists` once one is verified.
 * - VerifyTOTP: POST …/totp/_verify {code}: a current code of the secret completes the
 *   enrolment (400 naming `totp.code` for a malformed or wrong code, and without an enrolment
 *   `user.totp.not_enrolled`; 400 `user.totp.already_verified`). From then on the login UI asks
 *   for a code after the password.
 * - RemoveTOTP: DELETE …/totp (404 `user.totp.not_found` when there is none); removes the
 *   recovery codes too.
 * - GenerateRecoveryCodes: POST …/recovery_codes → {details, codes}: ten single-use codes
 *   (80 bits each; stored as SHA-256 digests; a new set replaces the old) that log in in place
 *   of a TOTP code; 400 `user.totp.not_verified` without a verified TOTP.
 * `user.credential.write` in the user's organization, or the user themself.
 */
import { z } from 'zod';
import {
  type AggregateRecord,
  failedPrecondition,
  invalidArgument,
  notFound,
  generateRecoveryCodes,
  RECOVERY_CODE_COUNT,
  removeTotp,
  startTotp,
  type User,
  userKind,
  verifyTotp,
} from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { generateRecoveryCode, generateTotpSecret, matchTotp, normalizeRecoveryCode, TOTP_CODE, totpUri } from '../../../crypto/totp.js';
import { tokenDigest } from '../../../crypto/token-digest.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { readOrgOf, requireUserFor, userActor } from './shared.js';
import { loginNamesOf } from '../../../query/user-auth.js';

const actionInput = z.object({ id: resourceId });
const verifyInput = z.object({ id: resourceId, totp: z.object({ code: z.string().regex(TOTP_CODE, 'must be 6 digits') }, 'required') });

export const addTotpRpc = defineRpc({
  method: PlatformUsers.method.addTOTP,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(actionInput, request);
    const user = await requireHumanFor(call, id);
    const secret = generateTotpSecret();
    const details = await call.services.actors.ask(userActor(call, user), startTotp, { orgId: user.state.orgId, userId: id, secret }, { creator: call.caller.userId });
    const accountName = loginNamesOf(user.state.username, await readOrgOf(call, user.state.orgId)).preferredLoginName;
    return { details: toDetails(details), secret, uri: totpUri(secret, call.instance.name, accountName) };
  },
});

export const verifyTotpRpc = defineRpc({
  method: PlatformUsers.method.verifyTOTP,
  permission: 'authenticated',
  async handle(request, call) {
    const {
      id,
      totp: { code },
    } = parseWith(verifyInput, request);
    const user = await requireHumanFor(call, id);
    const totp = user.state.type === 'human' ? user.state.totp : undefined;
    if (totp === undefined) {
      throw failedPrecondition('user.totp.not_enrolled', 'the user has no TOTP enrolment to verify: start one with POST /resources/v3alpha/users/{id}/totp', {
        violations: [{ field: 'totp.code', description: 'no TOTP enrolment to check it against' }],
      });
    }
    if (totp.verified) throw failedPrecondition('user.totp.already_verified', 'the TOTP is already verified');
    const step = matchTotp(call.services.actors.sealer.open(totp.sealedSecret), code, call.services.clock.now());
    if (step === undefined) {
      throw invalidArgument('user.totp.code_invalid', 'the code does not match', { violations: [{ field: 'totp.code', description: 'does not match the current code of the secret' }] });
    }
    const details = await call.services.actors.ask(
      userActor(call, user),
      verifyTotp,
      { orgId: user.state.orgId, userId: id, sealedSecret: totp.sealedSecret, step },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});

export const removeTotpRpc = defineRpc({
  method: PlatformUsers.method.removeTOTP,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(actionInput, request);
    const user = await requireHumanFor(call, id);
    const details = await call.services.actors.ask(userActor(call, user), removeTotp, { orgId: user.state.orgId, userId: id }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});

export const generateRecoveryCodesRpc = defineRpc({
  method: PlatformUsers.method.generateRecoveryCodes,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(actionInput, request);
    const user = await requireHumanFor(call, id);
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
    const digests = codes.map((code) => tokenDigest(normalizeRecoveryCode(code)!));
    const details = await call.services.actors.ask(userActor(call, user), generateRecoveryCodes, { orgId: user.state.orgId, userId: id, digests }, { creator: call.caller.userId });
    return { details: toDetails(details), codes };
  },
});

/** The human user: the caller themself, or one the caller may write credentials of. */
export async function requireHumanFor(call: CallContext, id: string): Promise<AggregateRecord<User>> {
  const user = id === call.caller.userId ? await readOwned(call, userKind, id) : await requireUserFor(call, id, 'user.credential.write');
  if (user === undefined) throw notFound('user.not_found', 'user not found');
  if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'only human users have a TOTP');
  return user;
}
