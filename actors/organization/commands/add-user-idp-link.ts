/**
 * Links a human user to an external identity (external login: auto linking, manual linking).
 * The identity is claimed under `user.idp_link`, so linking an identity another user holds
 * fails with `user.idp_link_taken`; linking the same identity to the same user again records
 * nothing and succeeds.
 */
import type { CommandHandler } from '../../kernel/command.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import { createUserEvents, loadUser, requireHuman, requireUser, userReply, type UserCommand } from '../user-rules.js';
import { idpLinkClaim, type IdpLink } from '../user-idp-link.js';

export interface AddUserIdpLink extends UserCommand {
  readonly link: IdpLink;
}

export const addUserIdpLink: CommandHandler<AddUserIdpLink, ResourceDetails> = {
  load: loadUser,
  decide(loaded, c, ctx) {
    const record = requireUser(loaded, c);
    const human = requireHuman(record).state;
    const { idpId, externalUserId, externalUsername } = c.link;
    if ((human.idpLinks ?? []).some((l) => l.idpId === idpId && l.externalUserId === externalUserId)) return { events: [], reply: userReply(c.userId, record) };
    const emit = createUserEvents(c.userId, record.meta.owner, ctx);
    const link: IdpLink = { idpId, externalUserId, externalUsername };
    return { events: [emit({ type: 'user.idp.link.added', payload: link })], claims: [idpLinkClaim(link, c.userId)], reply: userReply(c.userId, record) };
  },
};
