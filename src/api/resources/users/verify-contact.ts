/**
 * POST /resources/v3alpha/users/{id}/_verify_email and _verify_phone: an administrator marks a
 * human user's email address / phone number as verified (`user.write`).
 */
import { verifyUserContact } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineUserActionRpc } from './user-action-rpc.js';

export const verifyEmailRpc = defineUserActionRpc(PlatformUsers.method.verifyEmail, verifyUserContact, { channel: 'email' });
export const verifyPhoneRpc = defineUserActionRpc(PlatformUsers.method.verifyPhone, verifyUserContact, { channel: 'phone' });
