/**
 * The organization's own login policy in the export document (`loginPolicy`, reference facts
 * §6.1): only when the organization has its own (an inherited instance policy is not exported).
 * Enum names as the reference writes them (`SECOND_FACTOR_TYPE_OTP` for TOTP,
 * `MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION` for passkeys); on import Tessera's own API names
 * (`SECOND_FACTOR_TYPE_TOTP`, `MULTI_FACTOR_TYPE_PASSKEY`) are accepted too. Tessera
 * extensions: `emailVerificationRequired`, `phoneVerificationRequired`. The lifetimes,
 * `idps`, `defaultRedirectUri` and the login-name switches of the reference are not carried.
 */
import { z } from 'zod';
import { loginSettingsKind, type ActorSystem, type LoginSettings, type MultiFactorType, type SecondFactorType } from '../../../../actors/index.js';

export interface DataLoginPolicy {
  allowUsernamePassword?: boolean;
  allowRegister?: boolean;
  allowExternalIdp?: boolean;
  forceMfa?: boolean;
  forceMfaLocalOnly?: boolean;
  hidePasswordReset?: boolean;
  passwordlessType?: string;
  secondFactors?: string[];
  multiFactors?: string[];
  emailVerificationRequired?: boolean;
  phoneVerificationRequired?: boolean;
}

const SECOND_FACTOR_NAMES: Readonly<Record<SecondFactorType, string>> = {
  totp: 'SECOND_FACTOR_TYPE_OTP',
  u2f: 'SECOND_FACTOR_TYPE_U2F',
  otp_email: 'SECOND_FACTOR_TYPE_OTP_EMAIL',
  otp_sms: 'SECOND_FACTOR_TYPE_OTP_SMS',
};
const SECOND_FACTOR_ALIASES: Readonly<Record<string, SecondFactorType>> = { SECOND_FACTOR_TYPE_TOTP: 'totp' };
const MULTI_FACTOR_NAMES: Readonly<Record<MultiFactorType, string>> = { passkey: 'MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION' };
const MULTI_FACTOR_ALIASES: Readonly<Record<string, MultiFactorType>> = { MULTI_FACTOR_TYPE_PASSKEY: 'passkey' };

/** The organization's own login policy; undefined when it inherits the instance's. */
export async function loginPolicyOf(actors: ActorSystem, instanceId: string, orgId: string): Promise<DataLoginPolicy | undefined> {
  const row = await actors.readRecord(instanceId, loginSettingsKind, orgId);
  if (row === undefined || row.meta.owner.type !== 'org') return undefined;
  const s = row.state;
  return {
    allowUsernamePassword: s.allowUsernamePassword,
    allowRegister: s.allowRegister,
    allowExternalIdp: s.allowExternalIdp,
    forceMfa: s.forceMfa,
    forceMfaLocalOnly: s.forceMfaLocalOnly,
    hidePasswordReset: s.hidePasswordReset,
    passwordlessType: s.passwordlessAllowed ? 'PASSWORDLESS_TYPE_ALLOWED' : 'PASSWORDLESS_TYPE_NOT_ALLOWED',
    secondFactors: s.secondFactors.map((f) => SECOND_FACTOR_NAMES[f]),
    multiFactors: s.multiFactors.map((f) => MULTI_FACTOR_NAMES[f]),
    emailVerificationRequired: s.emailVerificationRequired,
    phoneVerificationRequired: s.phoneVerificationRequired,
  };
}

function nameOf<D extends string>(names: Readonly<Record<D, string>>, aliases: Readonly<Record<string, D>>, what: string) {
  const reverse = new Map<string, D>([...Object.entries(names).map(([d, n]) => [n as string, d as D] as const), ...Object.entries(aliases)]);
  return z.string().transform((name, ctx) => reverse.get(name) ?? (ctx.addIssue({ code: 'custom', message: `must be a ${what} type name` }), z.NEVER));
}

/** The document's `loginPolicy` as the fields of a SetLoginSettings; a bad value names its field. */
export const loginPolicyItem = z
  .object({
    allowUsernamePassword: z.boolean().optional(),
    allowRegister: z.boolean().optional(),
    allowExternalIdp: z.boolean().optional(),
    forceMfa: z.boolean().optional(),
    forceMfaLocalOnly: z.boolean().optional(),
    hidePasswordReset: z.boolean().optional(),
    passwordlessType: z.enum(['PASSWORDLESS_TYPE_ALLOWED', 'PASSWORDLESS_TYPE_NOT_ALLOWED']).optional(),
    secondFactors: z.array(nameOf(SECOND_FACTOR_NAMES, SECOND_FACTOR_ALIASES, 'second factor')).optional(),
    multiFactors: z.array(nameOf(MULTI_FACTOR_NAMES, MULTI_FACTOR_ALIASES, 'multi factor')).optional(),
    emailVerificationRequired: z.boolean().optional(),
    phoneVerificationRequired: z.boolean().optional(),
  })
  .transform((p): Partial<LoginSettings> => {
    const { passwordlessType, secondFactors, multiFactors, ...flags } = p;
    return Object.fromEntries(
      Object.entries({
        ...flags,
        passwordlessAllowed: passwordlessType === undefined ? undefined : passwordlessType === 'PASSWORDLESS_TYPE_ALLOWED',
        secondFactors: secondFactors === undefined ? undefined : [...new Set(secondFactors)],
        multiFactors: multiFactors === undefined ? undefined : [...new Set(multiFactors)],
      }).filter(([, v]) => v !== undefined),
    );
  });
