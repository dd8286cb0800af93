/**
 * An organization's own lockout thresholds (reference facts §6.1 `lockoutPolicy`): failed
 * password checks and failed OTP checks after which its users are locked. One row per
 * organization (id = org id), absent until set; a threshold the organization never set is the
 * instance's (user settings, actors/instance/user-settings.ts).
 */
import { orgLockoutEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { UserSettings } from '../instance/user-settings.js';

export interface OrgLockout {
  /** Failed password checks after which a user of the organization is locked; 0 = never; absent: the instance's. */
  readonly maxPasswordAttempts?: number;
  /** Failed OTP checks after which a user of the organization is locked; 0 = never; absent: the instance's. */
  readonly maxOtpAttempts?: number;
}

export type OrgLockoutEvent =
  | { type: 'org.policy.lockout.set'; payload: { maxPasswordAttempts: number } }
  | { type: 'org.policy.lockout.otp.set'; payload: { maxOtpAttempts: number } };

/** Stream type `org_lockout`, table `org_lockouts`. */
export const orgLockoutKind: AggregateKind<OrgLockout, OrgLockoutEvent, 'org_lockout'> = {
  type: 'org_lockout',
  table: 'org_lockouts',
  events: orgLockoutEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'org.policy.lockout.set':
        return { ...state, maxPasswordAttempts: e.payload.maxPasswordAttempts };
      case 'org.policy.lockout.otp.set':
        return { ...state, maxOtpAttempts: e.payload.maxOtpAttempts };
      default:
        return state;
    }
  },
};

/** The password threshold for users of an organization: its own when set, else the instance's. */
export function effectiveMaxPasswordAttempts(instance: UserSettings, org: AggregateRecord<OrgLockout> | undefined): number {
  return org?.state.maxPasswordAttempts ?? instance.maxPasswordAttempts;
}

/** The OTP threshold for users of an organization: its own when set, else the instance's. */
export function effectiveMaxOtpAttempts(instance: UserSettings, org: AggregateRecord<OrgLockout> | undefined): number {
  return org?.state.maxOtpAttempts ?? instance.maxOtpAttempts;
}
