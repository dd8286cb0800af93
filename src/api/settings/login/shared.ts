/**
 * The login policy between its wire form (PlatformLoginSettings enums) and the domain's names,
 * and the factor names of the export / import document (login-policy-document.ts): one table
 * per factor list drives both, so a factor is added in one place.
 */
import { MULTI_FACTOR_TYPES, SECOND_FACTOR_TYPES, type LoginSettings, type MultiFactorType, type SecondFactorType } from '../../../../actors/index.js';
import { MultiFactorType as WireMulti, PasswordlessType, SecondFactorType as WireSecond } from '../../../gen/platform/settings/login/v3alpha/login_settings_service_pb.js';

/** One factor under every name it has outside the domain. */
export interface FactorNames<D extends string> {
  /** The settings API's enum value (gRPC / JSON number); the reference's enum has the same numbers. */
  readonly wire: number;
  /** The export document's name (the reference's enum name). */
  readonly document: string;
  /** Further names an import document may use (Tessera's own API enum names). */
  readonly aliases: readonly string[];
}

export const SECOND_FACTOR_NAMES: Readonly<Record<SecondFactorType, FactorNames<SecondFactorType>>> = {
  totp: { wire: WireSecond.TOTP, document: 'SECOND_FACTOR_TYPE_OTP', aliases: ['SECOND_FACTOR_TYPE_TOTP'] },
  u2f: { wire: WireSecond.U2F, document: 'SECOND_FACTOR_TYPE_U2F', aliases: [] },
  otp_email: { wire: WireSecond.OTP_EMAIL, document: 'SECOND_FACTOR_TYPE_OTP_EMAIL', aliases: [] },
  otp_sms: { wire: WireSecond.OTP_SMS, document: 'SECOND_FACTOR_TYPE_OTP_SMS', aliases: [] },
};

export const MULTI_FACTOR_NAMES: Readonly<Record<MultiFactorType, FactorNames<MultiFactorType>>> = {
  passkey: { wire: WireMulti.PASSKEY, document: 'MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION', aliases: ['MULTI_FACTOR_TYPE_PASSKEY'] },
};

function fromWire<D extends string>(types: readonly D[], names: Readonly<Record<D, FactorNames<D>>>): (value: number) => D | undefined {
  const reverse = new Map(types.map((d) => [names[d].wire, d] as const));
  return (value) => reverse.get(value);
}

export const secondFactorFromWire = fromWire(SECOND_FACTOR_TYPES, SECOND_FACTOR_NAMES);
export const multiFactorFromWire = fromWire(MULTI_FACTOR_TYPES, MULTI_FACTOR_NAMES);

/** The policy as GetLoginSettings returns it. */
export function toWireLoginSettings(s: LoginSettings) {
  return {
    allowUsernamePassword: s.allowUsernamePassword,
    allowRegister: s.allowRegister,
    allowExternalIdp: s.allowExternalIdp,
    forceMfa: s.forceMfa,
    forceMfaLocalOnly: s.forceMfaLocalOnly,
    hidePasswordReset: s.hidePasswordReset,
    secondFactors: s.secondFactors.map((f) => SECOND_FACTOR_NAMES[f].wire as WireSecond),
    multiFactors: s.multiFactors.map((f) => MULTI_FACTOR_NAMES[f].wire as WireMulti),
    passwordlessType: s.passwordlessAllowed ? PasswordlessType.ALLOWED : PasswordlessType.NOT_ALLOWED,
    emailVerificationRequired: s.emailVerificationRequired,
    phoneVerificationRequired: s.phoneVerificationRequired,
  };
}
