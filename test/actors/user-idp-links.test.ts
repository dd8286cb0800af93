/**
 * External identity links on the user aggregate and the session's IDP check: given state, when
 * command, then events / claims / releases / error code, and the folded read model.
 */
import { describe, expect, it } from 'vitest';
import { sessionAmr, sessionAuthTime, sessionKind } from '../../actors/organization/session.js';
import { userKind, type HumanUser } from '../../actors/organization/user.js';
import { IDP_LINK_SCOPE } from '../../actors/organization/user-idp-link.js';
import { addUserIdpLink } from '../../actors/organization/commands/add-user-idp-link.js';
import { removeUserIdpLink } from '../../actors/organization/commands/remove-user-idp-link.js';
import { addHumanUser } from '../../actors/organization/commands/add-human-user.js';
import { removeUser } from '../../actors/organization/commands/remove-user.js';
import { createSession } from '../../actors/organization/commands/create-session.js';
import { userSettingsKind } from '../../actors/instance/user-settings.js';
import { codeOf, context, given, NOW, record } from './decide.fixture.js';
import { humanUser, org, owner, withUser } from './user.fixture.js';
import { applyDecision } from './fold.fixture.js';

const link = { idpId: 'idp1', externalUserId: 'ext-1', externalUsername: 'alice@forge' };

const alice = (over: Partial<HumanUser> = {}): HumanUser => humanUser({ passwordHash: '', passwordChangedAt: 0, ...over });

describe('user IDP links', () => {
  it('adds a link with its unique claim; the read model lists it; the same link again records nothing', () => {
    const decision = addUserIdpLink.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', link }, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([['user.idp.link.added', link]]);
    expect(decision.claims).toEqual([{ scope: IDP_LINK_SCOPE, value: 'idp1:ext-1', holder: 'u1' }]);
    const row = applyDecision(userKind, 'u1', record('u1', alice(), owner), decision)!;
    expect((row.state as HumanUser).idpLinks).toEqual([link]);
    expect(addUserIdpLink.decide(withUser(alice({ idpLinks: [link] })), { orgId: 'o1', userId: 'u1', link }, context()).events).toEqual([]);
  });

  it('removes a link and releases its claim; an unknown link is 404', () => {
    const decision = removeUserIdpLink.decide(withUser(alice({ idpLinks: [link] })), { orgId: 'o1', userId: 'u1', idpId: 'idp1', externalUserId: 'ext-1' }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['user.idp.link.removed']);
    expect(decision.releases).toEqual([{ scope: IDP_LINK_SCOPE, value: 'idp1:ext-1' }]);
    const row = applyDecision(userKind, 'u1', record('u1', alice({ idpLinks: [link] }), owner), decision)!;
    expect((row.state as HumanUser).idpLinks).toEqual([]);
    expect(codeOf(() => removeUserIdpLink.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', idpId: 'idp1', externalUserId: 'ext-1' }, context()))).toBe('user.idp_link_not_found');
  });

  it('creates a user with its link in one decision, and releases the link when the user is removed', () => {
    const decision = addHumanUser.decide(
      given([org, { kind: userSettingsKind, id: 'i1' }]),
      {
        userId: 'u2', orgId: 'o1', username: 'bert', givenName: 'Bert', familyName: 'Brown', nickname: '', preferredLanguage: 'en', gender: 'unspecified',
        email: { address: 'bert@example.com', verified: true }, passwordHash: '', passwordChangeRequired: false, idpLink: link,
      },
      context(),
    );
    expect(decision.events.map((e) => e.type)).toEqual(['user.human.added', 'user.idp.link.added']);
    expect(decision.claims).toContainEqual({ scope: IDP_LINK_SCOPE, value: 'idp1:ext-1', holder: 'u2' });
    const removed = removeUser.decide(withUser(alice({ idpLinks: [link] })), { orgId: 'o1', userId: 'u1' }, context());
    expect(removed.releases).toContainEqual({ scope: IDP_LINK_SCOPE, value: 'idp1:ext-1' });
  });

  it('records an IDP check on a session only for a human linked to that IDP', () => {
    const create = { sessionId: 's1', orgId: 'o1', userId: 'u1', tokenDigest: 'd', lifetimeMs: 60_000, metadata: {}, userAgent: { userAgent: '', ip: '' }, idpId: 'idp1' };
    const decision = createSession.decide(withUser(alice({ idpLinks: [link] })), create, context());
    expect(decision.events.find((e) => e.type === 'session.idp.checked')?.payload).toEqual({ idpId: 'idp1' });
    const session = applyDecision(sessionKind, 's1', undefined, decision)!.state;
    expect(session).toMatchObject({ idpCheckedAt: NOW, idpId: 'idp1', passwordCheckedAt: 0 });
    expect(sessionAuthTime(session)).toBe(NOW);
    expect(sessionAmr(session)).toEqual([]);
    expect(codeOf(() => createSession.decide(withUser(alice()), create, context()))).toBe('session.idp_not_linked');
    expect(codeOf(() => createSession.decide(withUser(alice({ idpLinks: [link] })), { ...create, idpId: 'idp2' }, context()))).toBe('session.idp_not_linked');
  });
});
