/**
 * Partial update of a user: username (any user), profile / email / phone (humans), name /
 * description / access token type (machines). Only what changes is recorded; a patch that
 * changes nothing records nothing and succeeds. A new email address is unverified unless
 * `verified` says otherwise; an empty phone number removes the phone.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import type { UniqueClaim, UniqueRelease } from '../../kernel/ports.js';
import { userSettingsKind, userSettingsOf } from '../../instance/user-settings.js';
import type { HumanProfilePayload } from '../user-events.js';
import type { AccessTokenType, HumanUser, MachineUser, User } from '../user.js';
import {
  createUserEvents,
  loadUser,
  requireHuman,
  requireMachine,
  requireUser,
  userReply,
  usernameClaims,
  usernameReleases,
  type UserCommand,
} from '../user-rules.js';

export interface PatchUser extends UserCommand {
  readonly username?: string;
  readonly profile?: Partial<HumanProfilePayload>;
  readonly email?: { readonly address: string; readonly verified?: boolean };
  readonly phone?: { readonly number: string; readonly verified?: boolean };
  readonly machine?: { readonly name?: string; readonly description?: string; readonly accessTokenType?: AccessTokenType };
}

type Emit = ReturnType<typeof createUserEvents>;

export const patchUser: CommandHandler<PatchUser, ResourceDetails> = {
  load: (c, ctx) => [...loadUser(c), ref(userSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const events: DomainEvent[] = [];
    const claims: UniqueClaim[] = [];
    const releases: UniqueRelease[] = [];
    if (c.username !== undefined && c.username !== record.state.username) {
      const instanceWide = userSettingsOf(loaded.get(userSettingsKind, ctx.instanceId).record).usernameUniquePerInstance;
      events.push(emit({ type: 'user.username.changed', payload: instanceWide ? { username: c.username, usernameInstanceWide: true } : { username: c.username } }));
      const renamed = renameClaims(record.state, c.username, c.userId, instanceWide);
      claims.push(...renamed.claims);
      releases.push(...renamed.releases);
    }
    if (c.profile !== undefined || c.email !== undefined || c.phone !== undefined) {
      events.push(...humanChanges(requireHuman(record).state, c, emit));
    }
    if (c.machine !== undefined) events.push(...machineChanges(requireMachine(record).state, c.machine, emit));
    return { events, claims, releases, reply: userReply(c.userId, record) };
  },
};

/** Claims and releases of a rename; a case-only rename keeps the claims it already holds. */
function renameClaims(user: User, username: string, userId: string, instanceWide: boolean): { claims: UniqueClaim[]; releases: UniqueRelease[] } {
  const wanted = usernameClaims(user.orgId, username, userId, instanceWide);
  const held = usernameReleases(user);
  const isHeld = (scope: string, value: string) => held.some((h) => h.scope === scope && h.value === value);
  const isWanted = (scope: string, value: string) => wanted.some((w) => w.scope === scope && w.value === value);
  return {
    claims: wanted.filter((w) => !isHeld(w.scope, w.value)),
    releases: held.filter((h) => !isWanted(h.scope, h.value)),
  };
}

function humanChanges(user: HumanUser, c: PatchUser, emit: Emit): DomainEvent[] {
  const events: DomainEvent[] = [];
  const profile = changedFields(user.profile, c.profile ?? {});
  if (Object.keys(profile).length > 0) events.push(emit({ type: 'user.human.changed', payload: profile }));
  if (c.email !== undefined) {
    const verified = c.email.verified ?? (c.email.address === user.email.address ? user.email.verified : false);
    if (c.email.address === user.email.address && verified && !user.email.verified) events.push(emit({ type: 'user.human.email.verified', payload: {} }));
    else if (c.email.address !== user.email.address || verified !== user.email.verified) {
      events.push(emit({ type: 'user.human.email.changed', payload: { address: c.email.address, verified } }));
    }
  }
  if (c.phone !== undefined) {
    const number = c.phone.number;
    const verified = number !== '' && (c.phone.verified ?? (number === user.phone.number ? user.phone.verified : false));
    if (number === user.phone.number && verified && !user.phone.verified) events.push(emit({ type: 'user.human.phone.verified', payload: {} }));
    else if (number !== user.phone.number || verified !== user.phone.verified) {
      events.push(emit({ type: 'user.human.phone.changed', payload: { number, verified } }));
    }
  }
  return events;
}

function machineChanges(user: MachineUser, patch: NonNullable<PatchUser['machine']>, emit: Emit): DomainEvent[] {
  const changed = changedFields({ name: user.name, description: user.description, accessTokenType: user.accessTokenType }, patch);
  return Object.keys(changed).length > 0 ? [emit({ type: 'user.machine.changed', payload: changed })] : [];
}

/** The entries of `patch` that are set and differ from `current`. */
function changedFields<T extends object>(current: T, patch: Partial<T>): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(patch) as (keyof T)[]) {
    const value = patch[key];
    if (value !== undefined && value !== current[key]) out[key] = value;
  }
  return out;
}
