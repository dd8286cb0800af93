/**
 * OTP by email and by SMS as second factors of a human user (issue 14):
 * - AddOTPEmail: POST /resources/v3alpha/users/{id}/otp_email — needs a verified email address
 *   (400 `user.email.not_verified` naming `email`); 409 `user.otp_email.exists`.
 * - RemoveOTPEmail: DELETE …/otp_email (404 `user.otp_email.not_found`).
 * - AddOTPSMS / RemoveOTPSMS: the same with …/otp_sms and a verified phone number
 *   (`user.phone.not_verified`, `user.otp_sms.exists`, `user.otp_sms.not_found`).
 * From then on the login UI sends a code by that channel after the first factor. Adding also
 * needs a way to deliver (400 `delivery.mail_unavailable` / `delivery.sms_unavailable`), so no
 * user is enrolled in a factor the instance cannot send.
 * `user.credential.write` in the user's organization, or the user themself.
 */
import { z } from 'zod';
import { addOtpMessage, removeOtpMessage, type OtpChannel } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { requireOtpDelivery } from '../../../query/otp-message.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { userActor } from './shared.js';
import { requireHumanFor } from './totp.js';

const input = z.object({ id: resourceId });

type Method =
  | typeof PlatformUsers.method.addOTPEmail
  | typeof PlatformUsers.method.removeOTPEmail
  | typeof PlatformUsers.method.addOTPSMS
  | typeof PlatformUsers.method.removeOTPSMS;

function defineOtpRpc(method: Method, channel: OtpChannel, adding: boolean) {
  return defineRpc({
    method,
    permission: 'authenticated', // the user themself, else user.credential.write in the user's organization
    async handle(request, call) {
      const { id } = parseWith(input, request);
      const user = await requireHumanFor(call, id);
      if (adding) await requireOtpDelivery(call.services.actors, call.services.config, call.instance.id, channel);
      const command = adding ? addOtpMessage : removeOtpMessage;
      const details = await call.services.actors.ask(userActor(call, user), command, { orgId: user.state.orgId, userId: id, channel }, { creator: call.caller.userId });
      return { details: toDetails(details) };
    },
  });
}

export const addOtpEmailRpc = defineOtpRpc(PlatformUsers.method.addOTPEmail, 'email', true);
export const removeOtpEmailRpc = defineOtpRpc(PlatformUsers.method.removeOTPEmail, 'email', false);
export const addOtpSmsRpc = defineOtpRpc(PlatformUsers.method.addOTPSMS, 'sms', true);
export const removeOtpSmsRpc = defineOtpRpc(PlatformUsers.method.removeOTPSMS, 'sms', false);
