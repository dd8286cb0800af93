/**
 * Passkeys (WebAuthn credentials) of a human user. The attestation and assertion signatures are
 * verified at the edge (@simplewebauthn/server; the challenge is single-use and lives in the TTL
 * store); here the decisions that need the user's current state are taken: a credential id is
 * registered once per user, and an assertion is accepted only with a signature counter above the
 * stored one (both 0: an authenticator without a counter) — a lower or equal counter means a
 * cloned authenticator or a replayed assertion, and records nothing.
 */
import type { CommandHandler } from '../../kernel/command.js';
import { alreadyExists, notFound } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { HumanPasskey, PasskeyCredential } from '../user.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';

/** Passkeys per user. */
export const MAX_PASSKEYS = 20;

export interface AddPasskey extends UserCommand {
  readonly passkey: PasskeyCredential;
}

/** Records a verified registration; 409 `user.passkey.exists` for a credential id (or passkey id) the user already has. */
export const addPasskey: CommandHandler<AddPasskey, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const existing = record.state.passkeys ?? [];
    if (existing.some((p) => p.credentialId === c.passkey.credentialId || p.id === c.passkey.id)) {
      throw alreadyExists('user.passkey.exists', 'this passkey is already registered for the user');
    }
    if (existing.length >= MAX_PASSKEYS) throw alreadyExists('user.passkey.exists', `a user has at most ${MAX_PASSKEYS} passkeys`);
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.human.passkey.added', payload: { ...c.passkey, transports: [...c.passkey.transports] } })], reply: userReply(c.userId, record) };
  },
};

export interface RemovePasskey extends UserCommand {
  readonly passkeyId: string;
}

/** Removes a passkey; 404 `user.passkey.not_found` when the user has none with this id. */
export const removePasskey: CommandHandler<RemovePasskey, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    if (!(record.state.passkeys ?? []).some((p) => p.id === c.passkeyId)) throw notFound('user.passkey.not_found', 'passkey not found');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.human.passkey.removed', payload: { id: c.passkeyId } })], reply: userReply(c.userId, record) };
  },
};

export interface RecordPasskeyUse extends UserCommand {
  readonly passkeyId: string;
  /** The signature counter of the verified assertion. */
  readonly counter: number;
}

export type PasskeyUseOutcome = 'valid' | 'counter' | 'unknown' | 'locked';

/**
 * Records an assertion the edge verified: accepted when the counter is above the stored one (or
 * both are 0); otherwise `counter` (a cloned authenticator or replay) and nothing is recorded.
 * A locked or inactive user, or a passkey removed meanwhile, records nothing either.
 */
export const recordPasskeyUse: CommandHandler<RecordPasskeyUse, PasskeyUseOutcome> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireHuman(requireUser(loaded, c));
    const reply = (outcome: PasskeyUseOutcome) => () => outcome;
    if (record.state.state !== 'active') return { events: [], reply: reply('locked') };
    const passkey = (record.state.passkeys ?? []).find((p) => p.id === c.passkeyId);
    if (passkey === undefined) return { events: [], reply: reply('unknown') };
    if (!counterAdvances(passkey, c.counter)) return { events: [], reply: reply('counter') };
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return { events: [emit({ type: 'user.human.passkey.used', payload: { id: c.passkeyId, counter: c.counter } })], reply: reply('valid') };
  },
};

/** WebAuthn §6.1.1: a counter must grow; an authenticator that keeps 0 has none. */
export function counterAdvances(passkey: Pick<HumanPasskey, 'counter'>, counter: number): boolean {
  return (passkey.counter === 0 && counter === 0) || counter > passkey.counter;
}
