/**
 * Adds a human user to an organization. The edge has already checked the password against
 * the complexity policy and hashed it (argon2id): the command only ever sees the hash.
 */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { userSettingsKind, userSettingsOf } from '../../instance/user-settings.js';
import { orgKind } from '../org.js';
import type { HumanAddedPayload } from '../user-events.js';
import { userKind, type Gender } from '../user.js';
import { createUserEvents, requireOrg, usernameClaims } from '../user-rules.js';
import { idpLinkClaim, type IdpLink } from '../user-idp-link.js';

export interface AddHumanUser {
  readonly userId: string;
  readonly orgId: string;
  readonly username: string;
  readonly givenName: string;
  readonly familyName: string;
  /** Defaults to "given family". */
  readonly displayName?: string;
  readonly nickname: string;
  readonly preferredLanguage: string;
  readonly gender: Gender;
  readonly email: { readonly address: string; readonly verified: boolean };
  readonly phone?: { readonly number: string; readonly verified: boolean };
  /** argon2id PHC string, or '' for none. */
  readonly passwordHash: string;
  readonly passwordChangeRequired: boolean;
  /** An external identity to link in the same append (external login's account creation). */
  readonly idpLink?: IdpLink;
}

export const addHumanUser: CommandHandler<AddHumanUser, ResourceDetails> = {
  load: (c, ctx) => [ref(userKind, c.userId), ref(orgKind, c.orgId), ref(userSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    requireOrg(loaded, c.orgId);
    if (loaded.get(userKind, c.userId).version > 0) throw alreadyExists('user.exists', 'the user already exists');
    const instanceWide = userSettingsOf(loaded.get(userSettingsKind, ctx.instanceId).record).usernameUniquePerInstance;
    const owner = orgOwner(c.orgId);
    const payload: HumanAddedPayload = {
      orgId: c.orgId,
      username: c.username,
      profile: {
        givenName: c.givenName,
        familyName: c.familyName,
        displayName: c.displayName ?? defaultDisplayName(c.givenName, c.familyName),
        nickname: c.nickname,
        preferredLanguage: c.preferredLanguage,
        gender: c.gender,
      },
      email: { address: c.email.address, verified: c.email.verified },
      phone: c.phone === undefined ? { number: '', verified: false } : { number: c.phone.number, verified: c.phone.number !== '' && c.phone.verified },
      passwordHash: c.passwordHash,
      // a user without a password cannot be required to change it
      passwordChangeRequired: c.passwordHash !== '' && c.passwordChangeRequired,
      ...(instanceWide ? { usernameInstanceWide: true } : {}),
    };
    const event = createUserEvents(c.userId, owner, ctx);
    const link = c.idpLink === undefined ? undefined : { idpId: c.idpLink.idpId, externalUserId: c.idpLink.externalUserId, externalUsername: c.idpLink.externalUsername };
    return {
      events: [event({ type: 'user.human.added', payload: payload }), ...(link === undefined ? [] : [event({ type: 'user.idp.link.added', payload: link })])],
      claims: [...usernameClaims(c.orgId, c.username, c.userId, instanceWide), ...(link === undefined ? [] : [idpLinkClaim(link, c.userId)])],
      reply: (outcome) => detailsAfter(outcome, { id: c.userId, record: undefined, owner }),
    };
  },
};

export function defaultDisplayName(givenName: string, familyName: string): string {
  return `${givenName} ${familyName}`.trim();
}
