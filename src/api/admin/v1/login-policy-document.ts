/**
 * The organization's own login policy in the export document (`loginPolicy`, reference facts
 * §6.1): only when the organization has its own (an inherited instance policy is not exported).
 * Enum names as the reference writes them (`SECOND_FACTOR_TYPE_OTP` for TOTP,
 * `MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION` for passkeys); on import Tessera's own API names
 * (`SECOND_FACTOR_TYPE_TOTP`, `MULTI_FACTOR_TYPE_PASSKEY`) and the enum numbers (proto3 JSON) are
 * accepted too; the names come from the one factor table of the settings API (shared.ts). Tessera
 * extensions: `emailVerificationRequired`, `phoneVerificationRequired`. The lifetimes,
 * `idps`, `defaultRedirectUri` and the login-name switches of the reference are not carried.
 */
import { z } from 'zod';
import { loginSettingsKind, MULTI_FACTOR_TYPES, SECOND_FACTOR_TYPES, type ActorSystem, type LoginSettings } from '../../../../actors/index.js';
import { MULTI_FACTOR_NAMES, SECOND_FACTOR_NAMES, type FactorNames } from '../../settings/login/shared.js';

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
    secondFactors: s.secondFactors.map((f) => SECOND_FACTOR_NAMES[f].document),
    multiFactors: s.multiFactors.map((f) => MULTI_FACTOR_NAMES[f].document),
    emailVerificationRequired: s.emailVerificationRequired,
    phoneVerificationRequired: s.phoneVerificationRequired,
  };
}

/**
 * A factor of the document: its reference name, an alias, or — proto3 JSON allows enum values
 * as numbers — its enum number (the reference's numbers are the settings API's).
 */
function nameOf<D extends string>(types: readonly D[], names: Readonly<Record<D, FactorNames<D>>>, what: string) {
  const reverse = new Map<string | number, D>(types.flatMap((d) => [[names[d].document, d], [names[d].wire, d], ...names[d].aliases.map((a) => [a, d] as const)] as const));
  return z.union([z.string(), z.number()]).transform((name, ctx) => reverse.get(name) ?? (ctx.addIssue({ code: 'custom', message: `must be a ${what} type name` }), z.NEVER));
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
    secondFactors: z.array(nameOf(SECOND_FACTOR_TYPES, SECOND_FACTOR_NAMES, 'second factor')).optional(),
    multiFactors: z.array(nameOf(MULTI_FACTOR_TYPES, MULTI_FACTOR_NAMES, 'multi factor')).optional(),
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
