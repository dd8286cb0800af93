/**
 * RequestPasswordReset: POST /resources/v3alpha/users/{id}/password/_reset. The user themself or
 * a caller with `user.credential.write` has a reset code mailed to the user's email address
 * through the durable outbox (src/query/password-reset.ts); the code is then given to
 * SetPassword as `verificationCode`. 400 FailedPrecondition `delivery.mail_unavailable` when the instance has no
 * active SMTP provider and the node no default SMTP server; 400 `user.email.missing` for a user
 * without an email address. Counts against the password limit of the user.
 */
import { failedPrecondition, notFound, userKind } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { sendPasswordResetCode } from '../../../query/password-reset.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { z } from 'zod';
import { requireUserFor } from './shared.js';

const input = z.object({ id: resourceId });

export const requestPasswordResetRpc = defineRpc({
  method: PlatformUsers.method.requestPasswordReset,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = id === call.caller.userId ? await readOwned(call, userKind, id) : await requireUserFor(call, id, 'user.credential.write');
    if (user === undefined) throw notFound('user.not_found', 'user not found');
    if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'only human users have a password');
    await call.services.limits?.consume(call.instance.id, 'passwordLoginName', `${call.instance.id}\u0000user:${id}`);
    const sent = await sendPasswordResetCode(call.services.actors, call.services.config, { instanceId: call.instance.id, orgId: user.state.orgId, userId: id, creator: call.caller.userId });
    return { details: toDetails({ id, sequence: sent.sequence, changeDate: sent.changedAt, resourceOwner: user.meta.owner }) };
  },
});
