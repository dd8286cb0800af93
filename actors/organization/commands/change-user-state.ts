/**
 * The user lifecycle: active ⇄ inactive (`deactivate` / `reactivate`), active ⇄ locked
 * (`lock` / `unlock`; unlocking also resets the failed password counter). Asking for the
 * state the user is already in records nothing and succeeds; a transition that skips a step
 * (reactivating a locked user, locking an inactive one) is a failed precondition.
 */
import { failedPrecondition } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { UserLifecycle } from '../user.js';
import { createUserEvents, loadUser, requireUser, userReply, type UserCommand } from '../user-rules.js';

export type UserStateAction = 'deactivate' | 'reactivate' | 'lock' | 'unlock';

export interface ChangeUserState extends UserCommand {
  readonly action: UserStateAction;
}

interface Transition {
  readonly target: UserLifecycle;
  readonly from: readonly UserLifecycle[];
  readonly event: 'user.deactivated' | 'user.reactivated' | 'user.locked' | 'user.unlocked';
}

const transitions: Record<UserStateAction, Transition> = {
  deactivate: { target: 'inactive', from: ['active', 'locked'], event: 'user.deactivated' },
  reactivate: { target: 'active', from: ['inactive'], event: 'user.reactivated' },
  lock: { target: 'locked', from: ['active'], event: 'user.locked' },
  unlock: { target: 'active', from: ['locked'], event: 'user.unlocked' },
};

export const changeUserState: CommandHandler<ChangeUserState, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const reply = userReply(c.userId, record);
    const transition = transitions[c.action];
    const current = record.state.state;
    if (current === transition.target) return { events: [], reply };
    if (!transition.from.includes(current)) {
      throw failedPrecondition(`user.${current}`, `the user is ${current}; this change is not possible from that state`);
    }
    return { events: [createUserEvents(c.userId, record.meta.owner, ctx)({ type: transition.event, payload: {} })], reply };
  },
};
