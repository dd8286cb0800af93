/** Removes a user's link to an external identity (and releases its claim); 404 `user.idp_link_not_found`. */
import type { CommandHandler } from '../../kernel/command.js';
import { notFound } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';
import { idpLinkReleases } from '../user-idp-link.js';

export interface RemoveUserIdpLink extends UserCommand {
  readonly idpId: string;
  readonly externalUserId: string;
}

export const removeUserIdpLink: CommandHandler<RemoveUserIdpLink, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const link = (requireHuman(record).state.idpLinks ?? []).find((l) => l.idpId === c.idpId && l.externalUserId === c.externalUserId);
    if (link === undefined) throw notFound('user.idp_link_not_found', 'the user has no link to this external identity');
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    return {
      events: [emit({ type: 'user.idp.link.removed', payload: { idpId: link.idpId, externalUserId: link.externalUserId } })],
      releases: idpLinkReleases([link]),
      reply: userReply(c.userId, record),
    };
  },
};
