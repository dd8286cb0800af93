/** Rules shared by the user commands: lookups with typed errors, event and claim builders. */
import type { AggregateRecord } from '../kernel/aggregate.js';
import { ref, type AggregateRef, type CommandContext, type LoadedSet, type Outcome } from '../kernel/command.js';
import { failedPrecondition, notFound } from '../kernel/errors.js';
import { detailsAfter, type ResourceDetails } from '../kernel/owner.js';
import { emitter, type Emit } from '../kernel/events.js';
import type { Owner, UniqueClaim, UniqueRelease } from '../kernel/ports.js';
import { orgKind } from './org.js';
import type { UserEvent } from './user-events.js';
import { idpLinkReleases } from './user-idp-link.js';
import {
  instanceUsernameKey,
  PAT_SCOPE,
  USERNAME_INSTANCE_SCOPE,
  USERNAME_SCOPE,
  userKind,
  usernameKey,
  type HumanUser,
  type MachineUser,
  type User,
} from './user.js';

/** Every command on an existing user names the user and its organization (the actor's). */
export interface UserCommand {
  readonly orgId: string;
  readonly userId: string;
}

/** What a command on an existing user loads: the user and its organization. */
export function loadUser(c: UserCommand): AggregateRef[] {
  return [ref(userKind, c.userId), ref(orgKind, c.orgId)];
}

/** The user's row, or 404 `user.not_found` (also when it belongs to another or a removed organization). */
export function requireUser(loaded: LoadedSet, c: UserCommand): AggregateRecord<User> {
  const record = loaded.get(userKind, c.userId).record;
  if (record === undefined || record.state.orgId !== c.orgId || loaded.get(orgKind, c.orgId).record === undefined) {
    throw notFound('user.not_found', 'user not found');
  }
  return record;
}

export function requireOrg(loaded: LoadedSet, orgId: string): void {
  if (loaded.get(orgKind, orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
}

export function requireHuman(record: AggregateRecord<User>): AggregateRecord<HumanUser> {
  if (record.state.type !== 'human') throw failedPrecondition('user.not_human', 'this operation is only available for human users');
  return record as AggregateRecord<HumanUser>;
}

export function requireMachine(record: AggregateRecord<User>): AggregateRecord<MachineUser> {
  if (record.state.type !== 'machine') throw failedPrecondition('user.not_machine', 'this operation is only available for machine users');
  return record as AggregateRecord<MachineUser>;
}

/** Builds events of one user's stream. */
export function createUserEvents(userId: string, owner: Owner, ctx: CommandContext): UserEmit {
  return emitter(userKind, userId, owner, ctx.creator);
}

/** Builds events of one user's stream: `emit({ type: 'user.locked', payload: {} })`. */
export type UserEmit = Emit<UserEvent, 'user'>;

/** The reply of a user command: details after the write, or of the current row for a no-op. */
export function userReply(userId: string, record: AggregateRecord<User>): (outcome: Outcome) => ResourceDetails {
  return (outcome) => detailsAfter(outcome, { id: userId, record, owner: record.meta.owner });
}

/** Claims of a username: always per organization, additionally instance-wide when asked. */
export function usernameClaims(orgId: string, username: string, userId: string, instanceWide: boolean): UniqueClaim[] {
  const claims = [{ scope: USERNAME_SCOPE, value: usernameKey(orgId, username), holder: userId }];
  if (instanceWide) claims.push({ scope: USERNAME_INSTANCE_SCOPE, value: instanceUsernameKey(username), holder: userId });
  return claims;
}

/** Releases of the username claims a user holds. */
export function usernameReleases(user: User): UniqueRelease[] {
  const releases = [{ scope: USERNAME_SCOPE, value: usernameKey(user.orgId, user.username) }];
  if (user.usernameInstanceWide) releases.push({ scope: USERNAME_INSTANCE_SCOPE, value: instanceUsernameKey(user.username) });
  return releases;
}

/** Releases of every unique value a user holds (on removal). */
export function allReleases(user: User): UniqueRelease[] {
  const tokens = user.type === 'machine' ? user.tokens.map((t) => ({ scope: PAT_SCOPE, value: t.digest })) : [];
  const links = user.type === 'human' ? idpLinkReleases(user.idpLinks ?? []) : [];
  return [...usernameReleases(user), ...tokens, ...links];
}
