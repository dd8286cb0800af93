/** PlatformUsers: every RPC definition of the service. */
import { addMachineKeyRpc } from './add-machine-key.js';
import { addPersonalAccessTokenRpc } from './add-personal-access-token.js';
import { activateUserRpc, deactivateUserRpc, lockUserRpc, unlockUserRpc } from './change-user-state.js';
import { createUserRpc } from './create-user.js';
import { deleteMachineKeyRpc } from './delete-machine-key.js';
import { deletePersonalAccessTokenRpc } from './delete-personal-access-token.js';
import { deleteUserMetadataRpc } from './delete-user-metadata.js';
import { deleteUserRpc } from './delete-user.js';
import { getUserRpc } from './get-user.js';
import { listMachineKeysRpc } from './list-machine-keys.js';
import { listPersonalAccessTokensRpc } from './list-personal-access-tokens.js';
import { listUserMetadataRpc } from './list-user-metadata.js';
import { generateMachineSecretRpc, removeMachineSecretRpc } from './machine-secret.js';
import { patchUserRpc } from './patch-user.js';
import { searchUsersRpc } from './search-users.js';
import { setPasswordRpc } from './set-password.js';
import { requestPasswordResetRpc } from './request-password-reset.js';
import { setUserMetadataRpc } from './set-user-metadata.js';
import { addOtpEmailRpc, addOtpSmsRpc, removeOtpEmailRpc, removeOtpSmsRpc } from './otp-message.js';
import { listPasskeysRpc, removePasskeyRpc, startPasskeyRegistrationRpc, verifyPasskeyRegistrationRpc } from './passkeys.js';
import { addTotpRpc, generateRecoveryCodesRpc, removeTotpRpc, verifyTotpRpc } from './totp.js';
import { verifyEmailRpc, verifyPhoneRpc } from './verify-contact.js';
import { sendEmailCodeRpc, sendPhoneCodeRpc, verifyEmailCodeRpc, verifyPhoneCodeRpc } from './contact-codes.js';

export const userRpcs = [
  createUserRpc,
  getUserRpc,
  patchUserRpc,
  deleteUserRpc,
  searchUsersRpc,
  activateUserRpc,
  deactivateUserRpc,
  lockUserRpc,
  unlockUserRpc,
  setPasswordRpc,
  requestPasswordResetRpc,
  verifyEmailRpc,
  verifyPhoneRpc,
  sendEmailCodeRpc,
  verifyEmailCodeRpc,
  sendPhoneCodeRpc,
  verifyPhoneCodeRpc,
  setUserMetadataRpc,
  listUserMetadataRpc,
  deleteUserMetadataRpc,
  addPersonalAccessTokenRpc,
  listPersonalAccessTokensRpc,
  deletePersonalAccessTokenRpc,
  addMachineKeyRpc,
  listMachineKeysRpc,
  deleteMachineKeyRpc,
  generateMachineSecretRpc,
  removeMachineSecretRpc,
  addTotpRpc,
  verifyTotpRpc,
  removeTotpRpc,
  generateRecoveryCodesRpc,
  addOtpEmailRpc,
  removeOtpEmailRpc,
  addOtpSmsRpc,
  removeOtpSmsRpc,
  startPasskeyRegistrationRpc,
  verifyPasskeyRegistrationRpc,
  listPasskeysRpc,
  removePasskeyRpc,
] as const;
