/** The login policy between its wire form (PlatformLoginSettings enums) and the domain's names. */
import type { LoginSettings, MultiFactorType, SecondFactorType } from '../../../../actors/index.js';
import { MultiFactorType as WireMulti, PasswordlessType, SecondFactorType as WireSecond } from '../../../gen/platform/settings/login/v3alpha/login_settings_service_pb.js';

export const SECOND_FACTOR_TO_WIRE: Readonly<Record<SecondFactorType, WireSecond>> = {
  totp: WireSecond.TOTP,
  u2f: WireSecond.U2F,
  otp_email: WireSecond.OTP_EMAIL,
  otp_sms: WireSecond.OTP_SMS,
};

export const MULTI_FACTOR_TO_WIRE: Readonly<Record<MultiFactorType, WireMulti>> = { passkey: WireMulti.PASSKEY };

export function secondFactorFromWire(value: number): SecondFactorType | undefined {
  return (Object.keys(SECOND_FACTOR_TO_WIRE) as SecondFactorType[]).find((k) => SECOND_FACTOR_TO_WIRE[k] === value);
}

export function multiFactorFromWire(value: number): MultiFactorType | undefined {
  return (Object.keys(MULTI_FACTOR_TO_WIRE) as MultiFactorType[]).find((k) => MULTI_FACTOR_TO_WIRE[k] === value);
}

/** The policy as GetLoginSettings returns it. */
export function toWireLoginSettings(s: LoginSettings) {
  return {
    allowUsernamePassword: s.allowUsernamePassword,
    allowRegister: s.allowRegister,
    allowExternalIdp: s.allowExternalIdp,
    forceMfa: s.forceMfa,
    forceMfaLocalOnly: s.forceMfaLocalOnly,
    hidePasswordReset: s.hidePasswordReset,
    secondFactors: s.secondFactors.map((f) => SECOND_FACTOR_TO_WIRE[f]),
    multiFactors: s.multiFactors.map((f) => MULTI_FACTOR_TO_WIRE[f]),
    passwordlessType: s.passwordlessAllowed ? PasswordlessType.ALLOWED : PasswordlessType.NOT_ALLOWED,
    emailVerificationRequired: s.emailVerificationRequired,
    phoneVerificationRequired: s.phoneVerificationRequired,
  };
}
