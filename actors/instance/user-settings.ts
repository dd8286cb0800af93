/**
 * The instance's user policies, one aggregate per instance (id = instance id): password
 * complexity, lockout after failed password checks and after failed OTP checks (both on by
 * default: 10 failures), whether
 * usernames must be unique across the whole instance (not only per organization), and whether
 * the login UI hides that a login name is unknown (on by default). Absent → the defaults below.
 */
import { userSettingsEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';

export interface PasswordComplexity {
  readonly minLength: number;
  readonly hasUppercase: boolean;
  readonly hasLowercase: boolean;
  readonly hasNumber: boolean;
  readonly hasSymbol: boolean;
}

export interface UserSettings {
  readonly passwordComplexity: PasswordComplexity;
  /** Failed password checks after which a user is locked; 0 = never. */
  readonly maxPasswordAttempts: number;
  /** Failed OTP checks (a wrong TOTP code at login) after which a user is locked; 0 = never. */
  readonly maxOtpAttempts: number;
  /** When set, new usernames (and renames) are also claimed instance-wide. */
  readonly usernameUniquePerInstance: boolean;
  /**
   * When set (the default), the login UI does not reveal whether an account exists: an unknown
   * login name goes on to the password page and fails there like a wrong password. Off: the
   * login name step says "user not found" (the instance opted in to show unknown users).
   */
  readonly ignoreUnknownUsernames: boolean;
}

/** The lockout threshold of an instance that never set one. */
export const DEFAULT_MAX_PASSWORD_ATTEMPTS = 10;
/** The OTP lockout threshold of an instance that never set one. */
export const DEFAULT_MAX_OTP_ATTEMPTS = 10;

export const DEFAULT_USER_SETTINGS: UserSettings = {
  passwordComplexity: { minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: false },
  maxPasswordAttempts: DEFAULT_MAX_PASSWORD_ATTEMPTS,
  maxOtpAttempts: DEFAULT_MAX_OTP_ATTEMPTS,
  usernameUniquePerInstance: false,
  ignoreUnknownUsernames: true,
};

export type UserSettingsEvent =
  | { type: 'instance.policy.password.complexity.set'; payload: PasswordComplexity }
  | { type: 'instance.policy.lockout.set'; payload: { maxPasswordAttempts: number } }
  | { type: 'instance.policy.lockout.otp.set'; payload: { maxOtpAttempts: number } }
  | { type: 'instance.policy.username.set'; payload: { uniquePerInstance: boolean } }
  | { type: 'instance.policy.login.unknown_usernames.set'; payload: { ignore: boolean } };

export const userSettingsKind: AggregateKind<UserSettings, UserSettingsEvent, 'usersettings'> = {
  type: 'usersettings',
  table: 'user_settings',
  events: userSettingsEvents,
  evolve(state, e) {
    const current = state ?? DEFAULT_USER_SETTINGS;
        switch (e.type) {
      case 'instance.policy.password.complexity.set':
        return { ...current, passwordComplexity: { ...e.payload } };
      case 'instance.policy.lockout.set':
        return { ...current, maxPasswordAttempts: e.payload.maxPasswordAttempts };
      case 'instance.policy.lockout.otp.set':
        return { ...current, maxOtpAttempts: e.payload.maxOtpAttempts };
      case 'instance.policy.username.set':
        return { ...current, usernameUniquePerInstance: e.payload.uniquePerInstance };
      case 'instance.policy.login.unknown_usernames.set':
        return { ...current, ignoreUnknownUsernames: e.payload.ignore };
      default:
        return state;
    }
  },
};

/** The effective settings: the stored row, else the defaults. */
export function userSettingsOf(record: AggregateRecord<UserSettings> | undefined): UserSettings {
  // Rows written before a field existed get its default.
  return record === undefined ? DEFAULT_USER_SETTINGS : { ...DEFAULT_USER_SETTINGS, ...record.state };
}
