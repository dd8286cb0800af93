/**
 * The login policy (issue 14 "Login policy settings"; reference facts §6.1 `loginPolicy`): which
 * ways in the login UI offers (username/password, self-registration, external identity
 * providers, password reset), whether a second factor is forced (for everyone, or for local
 * users only), which second factors may be used and enrolled, passwordless login, and whether
 * the login asks to verify the email / phone before it finishes.
 *
 * One row per context (id: the instance id or an organization id). The instance's row holds
 * the instance defaults (absent: DEFAULT_LOGIN_SETTINGS); an organization's row is its own whole
 * policy, a copy of the instance's taken when the organization first set something, and
 * removed again by a reset (the organization then inherits the instance's policy).
 */
import { loginSettingsEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import { instanceOwner, orgOwner } from '../kernel/owner.js';
import type { Owner } from '../kernel/ports.js';

/** A second factor a login may ask for after the first (`u2f`: a security key or passkey as second factor). */
export const SECOND_FACTOR_TYPES = ['totp', 'otp_email', 'otp_sms', 'u2f'] as const;
export type SecondFactorType = (typeof SECOND_FACTOR_TYPES)[number];

/** A factor that is a whole login on its own (`passkey`: passwordless with user verification). */
export const MULTI_FACTOR_TYPES = ['passkey'] as const;
export type MultiFactorType = (typeof MULTI_FACTOR_TYPES)[number];

export interface LoginSettings {
  /** Local users may sign in with their login name and password. */
  readonly allowUsernamePassword: boolean;
  /** The login UI offers self-registration (link, `prompt=create`, the register page). */
  readonly allowRegister: boolean;
  /** The login UI offers the organization's / instance's external identity providers. */
  readonly allowExternalIdp: boolean;
  /** Every user must pass a second factor (and enrol one during login when they have none). */
  readonly forceMfa: boolean;
  /** Like forceMfa, but not for a login that came through an external identity provider. */
  readonly forceMfaLocalOnly: boolean;
  /** No "Forgot password?" in the login UI; the reset pages refuse. */
  readonly hidePasswordReset: boolean;
  /** The second factors users may use and enrol. */
  readonly secondFactors: readonly SecondFactorType[];
  /** The passwordless factors users may use and enrol. */
  readonly multiFactors: readonly MultiFactorType[];
  /** Passwordless login (passkeys) is allowed. */
  readonly passwordlessAllowed: boolean;
  /** The login asks a user with an unverified email to verify it before it finishes. */
  readonly emailVerificationRequired: boolean;
  /** The login asks a user with an unverified phone number to verify it before it finishes. */
  readonly phoneVerificationRequired: boolean;
}

/** The policy of an instance that never set one: every way in allowed, no second factor forced. */
export const DEFAULT_LOGIN_SETTINGS: LoginSettings = Object.freeze({
  allowUsernamePassword: true,
  allowRegister: true,
  allowExternalIdp: true,
  forceMfa: false,
  forceMfaLocalOnly: false,
  hidePasswordReset: false,
  secondFactors: Object.freeze([...SECOND_FACTOR_TYPES]),
  multiFactors: Object.freeze([...MULTI_FACTOR_TYPES]),
  passwordlessAllowed: true,
  emailVerificationRequired: false,
  phoneVerificationRequired: false,
});

export const LOGIN_SETTINGS_FIELDS = Object.keys(DEFAULT_LOGIN_SETTINGS) as readonly (keyof LoginSettings)[];

export type LoginSettingsEvent =
  /** The changed fields (an organization's first set carries every field: its copy). */
  | { type: 'instance.policy.login.set' | 'org.policy.login.set'; payload: Partial<LoginSettings> }
  | { type: 'org.policy.login.removed'; payload: Record<string, never> };

/** Stream type `login_settings`, table `login_settings`; id: the instance id or the org id. */
export const loginSettingsKind: AggregateKind<LoginSettings, LoginSettingsEvent, 'login_settings'> = {
  type: 'login_settings',
  table: 'login_settings',
  events: loginSettingsEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'instance.policy.login.set':
      case 'org.policy.login.set':
        return { ...(state ?? DEFAULT_LOGIN_SETTINGS), ...e.payload };
      case 'org.policy.login.removed':
        return undefined;
      default:
        return state;
    }
  },
};

/** The login policy that applies, and whose it is. */
export interface EffectiveLoginSettings {
  readonly settings: LoginSettings;
  /** The organization when it has its own policy, else the instance. */
  readonly owner: Owner;
  /** The row the settings come from (undefined: the instance never set any). */
  readonly record: AggregateRecord<LoginSettings> | undefined;
}

/** The policy of an organization (its own row, else the instance's) or of the instance (`org` undefined). */
export function effectiveLoginSettings(
  instanceId: string,
  instance: AggregateRecord<LoginSettings> | undefined,
  org?: { readonly orgId: string; readonly record: AggregateRecord<LoginSettings> | undefined },
): EffectiveLoginSettings {
  if (org?.record !== undefined) return { settings: { ...DEFAULT_LOGIN_SETTINGS, ...org.record.state }, owner: orgOwner(org.orgId), record: org.record };
  return { settings: instance === undefined ? DEFAULT_LOGIN_SETTINGS : { ...DEFAULT_LOGIN_SETTINGS, ...instance.state }, owner: instanceOwner(instanceId), record: instance };
}

/**
 * Whether a login must pass a second factor: forceMfa for everyone; forceMfaLocalOnly (with or
 * without forceMfa) for everyone except a login through an external identity provider.
 */
export function mfaRequired(settings: LoginSettings, viaExternalIdp: boolean): boolean {
  if (settings.forceMfaLocalOnly) return !viaExternalIdp;
  return settings.forceMfa;
}

/** True when the two policies are equal field by field (lists in order). */
export function sameLoginSetting<K extends keyof LoginSettings>(a: LoginSettings[K], b: LoginSettings[K]): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}
