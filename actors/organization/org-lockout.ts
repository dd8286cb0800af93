/**
 * An organization's own lockout threshold (reference facts §6.1 `lockoutPolicy`): failed
 * password checks after which its users are locked. One row per organization (id = org id),
 * absent until set; without it the instance's user settings decide (actors/instance/user-settings.ts).
 */
import { orgLockoutEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { UserSettings } from '../instance/user-settings.js';

export interface OrgLockout {
  /** Failed password checks after which a user of the organization is locked; 0 = never. */
  readonly maxPasswordAttempts: number;
}

export type OrgLockoutEvent = { type: 'org.policy.lockout.set'; payload: { maxPasswordAttempts: number } };

/** Stream type `org_lockout`, table `org_lockouts`. */
export const orgLockoutKind: AggregateKind<OrgLockout, OrgLockoutEvent, 'org_lockout'> = {
  type: 'org_lockout',
  table: 'org_lockouts',
  events: orgLockoutEvents,
  evolve(state, e) {
    if (e.type === 'org.policy.lockout.set') return { maxPasswordAttempts: e.payload.maxPasswordAttempts };
    return state;
  },
};

/** The threshold for users of an organization: its own when set, else the instance's. */
export function effectiveMaxPasswordAttempts(instance: UserSettings, org: AggregateRecord<OrgLockout> | undefined): number {
  return org === undefined ? instance.maxPasswordAttempts : org.state.maxPasswordAttempts;
}
