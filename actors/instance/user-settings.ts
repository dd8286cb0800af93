/**
 * The instance's user policies, one aggregate per instance (id = instance id): password
 * complexity, lockout after failed password checks, and whether usernames must be unique
 * across the whole instance (not only per organization). Absent → the defaults below.
 */
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { StoredEvent } from '../kernel/ports.js';

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
  /** When set, new usernames (and renames) are also claimed instance-wide. */
  readonly usernameUniquePerInstance: boolean;
}

export const DEFAULT_USER_SETTINGS: UserSettings = {
  passwordComplexity: { minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: false },
  maxPasswordAttempts: 0,
  usernameUniquePerInstance: false,
};

export type UserSettingsEvent =
  | { type: 'instance.policy.password.complexity.set'; payload: PasswordComplexity }
  | { type: 'instance.policy.lockout.set'; payload: { maxPasswordAttempts: number } }
  | { type: 'instance.policy.username.set'; payload: { uniquePerInstance: boolean } };

export const userSettingsKind: AggregateKind<UserSettings> = {
  type: 'usersettings',
  table: 'user_settings',
  evolve(state, event: StoredEvent) {
    const current = state ?? DEFAULT_USER_SETTINGS;
    const e = event as unknown as UserSettingsEvent;
    switch (e.type) {
      case 'instance.policy.password.complexity.set':
        return { ...current, passwordComplexity: { ...e.payload } };
      case 'instance.policy.lockout.set':
        return { ...current, maxPasswordAttempts: e.payload.maxPasswordAttempts };
      case 'instance.policy.username.set':
        return { ...current, usernameUniquePerInstance: e.payload.uniquePerInstance };
      default:
        return state;
    }
  },
};

/** The effective settings: the stored row, else the defaults. */
export function userSettingsOf(record: AggregateRecord<UserSettings> | undefined): UserSettings {
  return record?.state ?? DEFAULT_USER_SETTINGS;
}
