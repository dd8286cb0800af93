/**
 * Adds a JSON key (JWT profile grant) to a machine user. The edge generated the RSA key pair
 * and hands the private key to the caller once; only the public key is recorded.
 */
import { failedPrecondition } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import { detailsAfter, type ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireMachine, requireUser, type UserCommand } from '../user-rules.js';

export interface AddMachineKey extends UserCommand {
  readonly keyId: string;
  /** SPKI PEM. */
  readonly publicKey: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

export const addMachineKey: CommandHandler<AddMachineKey, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireMachine(requireUser(loaded, c));
    if (c.expiresAt <= ctx.now) throw failedPrecondition('key.expiry_in_past', 'the expiration date must be in the future');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return {
      events: [emit({ type: 'user.machine.key.added', payload: { id: c.keyId, publicKey: c.publicKey, expiresAt: c.expiresAt } })],
      reply: (outcome) => detailsAfter(outcome, { id: c.keyId, record: undefined, owner: record.meta.owner }),
    };
  },
};
