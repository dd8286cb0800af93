/**
 * Records the outcome of a password check done at the edge (argon2 is slow and async, so it
 * never runs inside an actor): success resets the failed-attempts counter; a failure counts,
 * and locks the user once the counter reaches `maxPasswordAttempts` (0: never) — the
 * organization's own when it set one, else the instance's.
 * A success may carry a stronger hash of the same password (computed at the edge), which
 * replaces the checked one (`user.human.password.rehashed`).
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { userSettingsKind, userSettingsOf } from '../../instance/user-settings.js';
import type { DomainEvent } from '../../events.js';
import { effectiveMaxPasswordAttempts, orgLockoutKind } from '../org-lockout.js';
import { createUserEvents, loadUser, requireHuman, requireUser, type UserCommand } from '../user-rules.js';

export interface RecordPasswordCheck extends UserCommand {
  readonly succeeded: boolean;
  /** The hash the password was checked against; a check against a replaced hash records nothing. */
  readonly checkedHash: string;
  /** On success: a new hash of the same password that replaces `checkedHash` (argon2id for a bcrypt import). */
  readonly rehash?: string;
}

export interface PasswordCheckRecorded {
  /** True when this failure locked the user. */
  readonly locked: boolean;
  readonly failedAttempts: number;
}

export const recordPasswordCheck: CommandHandler<RecordPasswordCheck, PasswordCheckRecorded> = {
  load: (c, ctx) => [...loadUser(c), ref(userSettingsKind, ctx.instanceId), ref(orgLockoutKind, c.orgId)],
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const user = record.state;
    if (c.checkedHash !== user.passwordHash) return { events: [], reply: () => ({ locked: false, failedAttempts: user.failedPasswordAttempts }) };
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    if (c.succeeded) {
      const events: DomainEvent[] = [emit({ type: 'user.human.password.check.succeeded', payload: {} })];
      if (c.rehash !== undefined && c.rehash !== '') events.push(emit({ type: 'user.human.password.rehashed', payload: { passwordHash: c.rehash } }));
      return { events, reply: () => ({ locked: false, failedAttempts: 0 }) };
    }
    const max = effectiveMaxPasswordAttempts(userSettingsOf(loaded.get(userSettingsKind, ctx.instanceId).record), loaded.get(orgLockoutKind, c.orgId).record);
    const failedAttempts = user.failedPasswordAttempts + 1;
    const locks = max > 0 && failedAttempts >= max && user.state === 'active';
    const events: DomainEvent[] = [emit({ type: 'user.human.password.check.failed', payload: {} })];
    if (locks) events.push(emit({ type: 'user.locked', payload: {} }));
    return { events, reply: () => ({ locked: locks, failedAttempts }) };
  },
};
