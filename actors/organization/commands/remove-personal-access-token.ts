/** Removes a personal access token of a machine user and releases its digest. */
import { notFound } from '../../kernel/errors.js';
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { PAT_SCOPE } from '../user.js';
import { createUserEvents, loadUser, requireMachine, requireUser, userReply, type UserCommand } from '../user-rules.js';

export interface RemovePersonalAccessToken extends UserCommand {
  readonly tokenId: string;
}

export const removePersonalAccessToken: CommandHandler<RemovePersonalAccessToken, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireMachine(requireUser(loaded, c));
    const token = record.state.tokens.find((t) => t.id === c.tokenId);
    if (token === undefined) throw notFound('token.not_found', 'personal access token not found');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return {
      events: [emit({ type: 'user.token.removed', payload: { id: c.tokenId } })],
      releases: [{ scope: PAT_SCOPE, value: token.digest }],
      reply: userReply(c.userId, record),
    };
  },
};
