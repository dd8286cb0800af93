/**
 * Passkey deciders and session amr (#14): a credential registers once per user; an assertion is
 * recorded only with a growing signature counter (both 0: no counter; control: a higher counter
 * is accepted and becomes the stored one); a passkey session's amr is `user` + `mfa` when the
 * user was verified (control: without user verification no `mfa`, with a password `pwd user
 * mfa`); the auth request machine takes the passkey events only in its passkey states.
 */
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { authRequestMachine, type BrowserSessionSummary } from '../../actors/index.js';
import { addPasskey, counterAdvances, recordPasskeyUse, removePasskey } from '../../actors/organization/commands/passkey.js';
import { createSession } from '../../actors/organization/commands/create-session.js';
import { secondFactorCheckedAt, sessionAmr, sessionKind } from '../../actors/organization/session.js';
import { lacksSecondFactor, requiresSecondFactor, secondFactorsOf } from '../../src/query/second-factors.js';
import { userKind, type HumanPasskey, type HumanUser } from '../../actors/organization/user.js';
import { codeOf, context, NOW, record } from './decide.fixture.js';
import { humanUser, org, owner, withUser } from './user.fixture.js';
import { applyDecision, recorded } from './fold.fixture.js';

const passkey = (over: Partial<HumanPasskey> = {}): HumanPasskey => ({
  id: 'p1',
  name: 'Laptop',
  credentialId: 'cred-1',
  publicKey: 'cose',
  counter: 5,
  transports: ['internal'],
  createdAt: NOW,
  lastUsedAt: 0,
  ...over,
});

const alice = (over: Partial<HumanUser> = {}): HumanUser => humanUser({ passkeys: [passkey()], ...over });

describe('passkey deciders', () => {
  it('registers a credential once per user (control: another credential is added)', () => {
    const { createdAt: _c, lastUsedAt: _l, ...credential } = passkey();
    expect(codeOf(() => addPasskey.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', passkey: { ...credential, id: 'p2' } }, context()))).toBe('user.passkey.exists');
    const added = addPasskey.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', passkey: { ...credential, id: 'p2', credentialId: 'cred-2' } }, context());
    expect(added.events.map((e) => e.type)).toEqual(['user.human.passkey.added']);
    const after = userKind.evolve(alice(), recorded(userKind, added.events[0] as never)) as HumanUser;
    expect(after.passkeys?.map((p) => [p.id, p.lastUsedAt])).toEqual([['p1', 0], ['p2', 0]]);
  });

  it('records an assertion only with a growing counter (control: a higher one is accepted and stored)', () => {
    const use = (counter: number, user = alice()) => recordPasskeyUse.decide(withUser(user), { orgId: 'o1', userId: 'u1', passkeyId: 'p1', counter }, context());
    for (const stale of [0, 4, 5]) {
      const refused = use(stale);
      expect(refused.events).toEqual([]);
      expect(refused.reply({ events: [], record: () => undefined })).toBe('counter');
    }
    const accepted = use(6);
    expect(accepted.events.map((e) => [e.type, e.payload])).toEqual([['user.human.passkey.used', { id: 'p1', counter: 6 }]]);
    expect(accepted.reply({ events: [], record: () => undefined })).toBe('valid');
    const after = userKind.evolve(alice(), recorded(userKind, accepted.events[0] as never)) as HumanUser;
    expect(after.passkeys?.[0]).toMatchObject({ counter: 6, lastUsedAt: expect.any(Number) });
    expect(counterAdvances({ counter: 0 }, 0)).toBe(true); // an authenticator without a counter
    expect(counterAdvances({ counter: 3 }, 0)).toBe(false);
    expect(use(9, alice({ state: 'locked' })).reply({ events: [], record: () => undefined })).toBe('locked');
    expect(recordPasskeyUse.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', passkeyId: 'gone', counter: 9 }, context()).reply({ events: [], record: () => undefined })).toBe('unknown');
  });

  it('removes a passkey by id; an unknown id is 404', () => {
    expect(codeOf(() => removePasskey.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', passkeyId: 'nope' }, context()))).toBe('user.passkey.not_found');
    expect(removePasskey.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', passkeyId: 'p1' }, context()).events.map((e) => e.type)).toEqual(['user.human.passkey.removed']);
  });
});

describe('passkey sessions', () => {
  const create = (checks: object) =>
    createSession.decide(
      withUser(alice()),
      { sessionId: 's1', orgId: 'o1', userId: 'u1', tokenDigest: 'd', lifetimeMs: 60_000, metadata: {}, userAgent: { userAgent: '', ip: '' }, ...checks },
      context(),
    );
  const amrOf = (checks: object) => sessionAmr(applyDecision(sessionKind, 's1', undefined, create(checks))!.state);

  it('amr: user + mfa for a user-verified passkey, pwd user mfa with the password (control: no mfa without user verification)', () => {
    expect(amrOf({ passkey: { id: 'p1', userVerified: true } })).toEqual(['user', 'mfa']);
    expect(amrOf({ passkey: { id: 'p1', userVerified: true }, passwordHash: '$argon2id$current' })).toEqual(['pwd', 'user', 'mfa']);
    expect(amrOf({ passkey: { id: 'p1', userVerified: false } })).toEqual(['user']);
    expect(amrOf({ passwordHash: '$argon2id$current' })).toEqual(['pwd']);
  });

  it('amr beside the other factors: an external login or an OTP by email with a passkey is mfa (control: the external login alone is not)', () => {
    const linked = alice({ idpLinks: [{ idpId: 'idp1', externalUserId: 'x1', externalUsername: 'alice' }], otpEmail: {} });
    const amrWith = (checks: object) =>
      sessionAmr(
        applyDecision(
          sessionKind,
          's1',
          undefined,
          createSession.decide(
            withUser(linked),
            { sessionId: 's1', orgId: 'o1', userId: 'u1', tokenDigest: 'd', lifetimeMs: 60_000, metadata: {}, userAgent: { userAgent: '', ip: '' }, ...checks },
            context(),
          ),
        )!.state,
      );
    expect(amrWith({ idpId: 'idp1', passkey: { id: 'p1', userVerified: false } })).toEqual(['user', 'mfa']);
    expect(amrWith({ idpId: 'idp1', otpMessageChecked: 'email' })).toEqual(['otp', 'mfa']);
    expect(amrWith({ passwordHash: '$argon2id$current', otpMessageChecked: 'email' })).toEqual(['pwd', 'otp', 'mfa']);
    expect(amrWith({ idpId: 'idp1' })).toEqual([]);
  });

  it('a passkey is a second factor: required after the first one, and a passkey session checked one (control: a password-only session did not)', () => {
    const user = alice();
    expect(secondFactorsOf(user)).toEqual(['passkey']);
    expect(requiresSecondFactor(user)).toBe(true);
    expect(requiresSecondFactor(alice({ passkeys: [] }))).toBe(false);
    expect(secondFactorsOf(alice({ otpSms: {}, otpEmail: {} }))).toEqual(['sms', 'email', 'passkey']);
    const withPasskey = applyDecision(sessionKind, 's1', undefined, create({ passkey: { id: 'p1', userVerified: true } }))!.state;
    const passwordOnly = applyDecision(sessionKind, 's1', undefined, create({ passwordHash: '$argon2id$current' }))!.state;
    expect(secondFactorCheckedAt(withPasskey)).toBeGreaterThan(0);
    expect(lacksSecondFactor(user, withPasskey)).toBe(false);
    expect(secondFactorCheckedAt(passwordOnly)).toBe(0);
    expect(lacksSecondFactor(user, passwordOnly)).toBe(true);
  });

  it("refuses a passkey the user does not have", () => {
    expect(codeOf(() => create({ passkey: { id: 'other', userVerified: true } }))).toBe('session.passkey_not_found');
  });
});

describe('auth request machine: passkeys', () => {
  const session: BrowserSessionSummary = { sessionId: 's1', userId: 'u1', authTime: NOW, amr: ['user', 'mfa'], loginName: 'alice' };
  const start = () => initialTransition(authRequestMachine, { prompt: [], sessions: [], now: NOW })[0];

  it('passwordless: login name → passkey page → succeeded with issueCode; "other" goes back', () => {
    const [onPasskey] = transition(authRequestMachine, start(), { type: 'passkey.requested' });
    expect(onPasskey.value).toBe('awaitingPasskey');
    const [done, actions] = transition(authRequestMachine, onPasskey, { type: 'passkey.verified', userId: 'u1', loginName: 'alice', session });
    expect(done.value).toBe('succeeded');
    expect(done.context).toMatchObject({ userId: 'u1', loginName: 'alice', session });
    expect(actions.map((a) => a.type)).toContain('issueCode');
    expect(transition(authRequestMachine, onPasskey, { type: 'account.other' })[0].value).toBe('awaitingLoginName');
  });

  it('second factor: taken after the password; not on the password page itself (control)', () => {
    const [named] = transition(authRequestMachine, start(), { type: 'loginName.submitted', userId: 'u1', loginName: 'alice' });
    expect(transition(authRequestMachine, named, { type: 'passkey.verified', userId: 'u1', loginName: 'alice', session })[0].value).toBe('awaitingPassword');
    const [second] = transition(authRequestMachine, named, { type: 'otp.required', passwordCheckedAt: NOW });
    expect(transition(authRequestMachine, second, { type: 'passkey.verified', userId: 'u1', loginName: 'alice', session })[0].value).toBe('succeeded');
  });
});
