/**
 * The lifecycle side effects, one RPC each: POST /resources/v3alpha/users/{id}/_activate,
 * _deactivate, _lock, _unlock (`user.write` in the user's organization). Asking for the
 * current state succeeds without a new sequence.
 */
import { changeUserState } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineUserActionRpc } from './user-action-rpc.js';

export const activateUserRpc = defineUserActionRpc(PlatformUsers.method.activateUser, changeUserState, { action: 'reactivate' });
export const deactivateUserRpc = defineUserActionRpc(PlatformUsers.method.deactivateUser, changeUserState, { action: 'deactivate' });
export const lockUserRpc = defineUserActionRpc(PlatformUsers.method.lockUser, changeUserState, { action: 'lock' });
export const unlockUserRpc = defineUserActionRpc(PlatformUsers.method.unlockUser, changeUserState, { action: 'unlock' });
