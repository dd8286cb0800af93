/** Session deciders and evolve: given state, when command, then events / claims / error code. */
import { describe, expect, it } from 'vitest';
import { isSessionLive, sessionAmr, sessionKind, SESSION_TOKEN_SCOPE, type Session } from '../../actors/organization/session.js';
import { userKind, type HumanUser, type MachineUser } from '../../actors/organization/user.js';
import { createSession, type CreateSession } from '../../actors/organization/commands/create-session.js';
import { checkSession } from '../../actors/organization/commands/check-session.js';
import { terminateSession } from '../../actors/organization/commands/terminate-session.js';
import { codeOf, context, given, NOW, record } from './decide.fixture.js';
import { humanUser, machineUser, org, owner, withUser } from './user.fixture.js';
import { applyDecision } from './fold.fixture.js';

const create = (over: Partial<CreateSession> = {}): CreateSession => ({
  sessionId: 's1',
  orgId: 'o1',
  userId: 'u1',
  tokenDigest: 'digest',
  lifetimeMs: 60_000,
  metadata: { a: '1', empty: '' },
  userAgent: { userAgent: 'ua', ip: '10.0.0.1' },
  ...over,
});

const session = (over: Partial<Session> = {}): Session => ({
  orgId: 'o1',
  userId: 'u1',
  tokenDigest: 'digest',
  expiresAt: NOW + 60_000,
  userAgent: { userAgent: 'ua', ip: '' },
  userCheckedAt: NOW - 100,
  passwordCheckedAt: 0,
  patCheckedAt: 0,
  metadata: [{ key: 'a', value: '1' }],
  ...over,
});
const withSession = (s: Session, user: HumanUser | MachineUser = alice()) => withUser(user, { kind: sessionKind, record: record('s1', s, owner) });

const alice = humanUser;
const bot = (over: Partial<MachineUser> = {}): MachineUser =>
  machineUser({
    tokens: [
      { id: 't1', digest: 'd1', expiresAt: NOW + 1000, createdAt: NOW },
      { id: 't2', digest: 'd2', expiresAt: NOW, createdAt: NOW },
    ],
    ...over,
  });

describe('sessionAmr and the login policy’s multiFactors', () => {
  it('a user-verified passwordless passkey is two factors unless the policy did not count it (multiFactor false)', () => {
    const passkey = { webAuthNCheckedAt: NOW, webAuthNUserVerified: true };
    expect(sessionAmr(session(passkey)), 'counted (absent: as before)').toEqual(['user', 'mfa']);
    expect(sessionAmr(session({ ...passkey, webAuthNMultiFactor: true }))).toEqual(['user', 'mfa']);
    expect(sessionAmr(session({ ...passkey, webAuthNMultiFactor: false }))).toEqual(['user']);
    expect(sessionAmr(session({ ...passkey, webAuthNMultiFactor: false, totpCheckedAt: NOW })), 'with a code: two factors').toEqual(['otp', 'user', 'mfa']);
    expect(sessionAmr(session({ ...passkey, webAuthNUserVerified: false })), 'not user-verified: one').toEqual(['user']);
  });
});

describe('createSession', () => {
  it('records the user and password checks, the token digest, lifetime and metadata, and claims the digest', () => {
    const decision = createSession.decide(withUser(alice()), create({ passwordHash: '$argon2id$current' }), context());
    expect(decision.events.map((e) => e.type)).toEqual([
      'session.added',
      'session.user.checked',
      'session.password.checked',
      'session.token.set',
      'session.lifetime.set',
      'session.metadata.set',
    ]);
    expect(decision.events.every((e) => e.owner.id === 'o1' && e.aggregateId === 's1')).toBe(true);
    expect(decision.claims).toEqual([{ scope: SESSION_TOKEN_SCOPE, value: 'digest', holder: 's1' }]);
    const row = applyDecision(sessionKind, 's1', undefined, decision)!;
    expect(row.state).toMatchObject({ orgId: 'o1', userId: 'u1', tokenDigest: 'digest', expiresAt: NOW + 60_000, userCheckedAt: NOW, passwordCheckedAt: NOW, patCheckedAt: 0 });
    expect(row.state.metadata).toEqual([{ key: 'a', value: '1' }]);
    expect(sessionAmr(row.state)).toEqual(['pwd']);
    expect(isSessionLive(row, NOW + 59_999)).toBe(true);
    expect(isSessionLive(row, NOW + 60_000)).toBe(false);
  });

  it('refuses a password checked against a replaced hash, and the wrong kind of user or factor', () => {
    expect(codeOf(() => createSession.decide(withUser(alice()), create({ passwordHash: '$argon2id$old' }), context()))).toBe('session.password_invalid');
    expect(codeOf(() => createSession.decide(withUser(alice({ passwordHash: '' })), create({ passwordHash: '' }), context()))).toBe('session.password_invalid');
    expect(codeOf(() => createSession.decide(withUser(bot()), create({ passwordHash: 'x' }), context()))).toBe('user.not_human');
    expect(codeOf(() => createSession.decide(withUser(alice()), create({ patDigest: 'd1' }), context()))).toBe('user.not_machine');
  });

  it('checks a live personal access token of a machine user', () => {
    const decision = createSession.decide(withUser(bot()), create({ patDigest: 'd1' }), context());
    expect(decision.events.find((e) => e.type === 'session.pat.checked')?.payload).toEqual({ tokenId: 't1' });
    expect(sessionAmr(applyDecision(sessionKind, 's1', undefined, decision)!.state)).toEqual(['pat']);
    expect(codeOf(() => createSession.decide(withUser(bot()), create({ patDigest: 'd2' }), context()))).toBe('session.token_invalid'); // expired
    expect(codeOf(() => createSession.decide(withUser(bot()), create({ patDigest: 'nope' }), context()))).toBe('session.token_invalid');
  });

  it('requires an active user of a live organization and a new session id', () => {
    expect(codeOf(() => createSession.decide(withUser(alice({ state: 'locked' })), create(), context()))).toBe('user.locked');
    expect(codeOf(() => createSession.decide(withUser(alice({ state: 'inactive' })), create(), context()))).toBe('user.inactive');
    expect(codeOf(() => createSession.decide(given([org]), create(), context()))).toBe('user.not_found');
    expect(codeOf(() => createSession.decide(given([{ kind: userKind, record: record('u1', alice(), owner) }]), create(), context()))).toBe('user.not_found');
    expect(codeOf(() => createSession.decide(withUser(alice({ orgId: 'o2' })), create(), context()))).toBe('user.not_found');
    expect(codeOf(() => createSession.decide(withUser(alice(), { kind: sessionKind, id: 's1', version: 2 }), create(), context()))).toBe('session.exists');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect(codeOf(() => createSession.decide(withUser(alice()), create({ metadata: many }), context()))).toBe('session.metadata_too_large');
  });
});

describe('checkSession', () => {
  it('adds a password check, extends the lifetime from now and merges metadata', () => {
    const current = record('s1', session(), owner);
    const decision = checkSession.decide(
      withSession(session()),
      { sessionId: 's1', orgId: 'o1', userId: 'u1', passwordHash: '$argon2id$current', lifetimeMs: 5000, metadata: { a: '', b: '2' } },
      context(),
    );
    expect(decision.events.map((e) => e.type)).toEqual(['session.password.checked', 'session.lifetime.set', 'session.metadata.set']);
    const row = applyDecision(sessionKind, 's1', current, decision)!;
    expect(row.state).toMatchObject({ passwordCheckedAt: NOW, expiresAt: NOW + 5000, metadata: [{ key: 'b', value: '2' }] });
  });

  it('records nothing when nothing changes', () => {
    const decision = checkSession.decide(withSession(session()), { sessionId: 's1', orgId: 'o1', userId: 'u1', metadata: { a: '1', gone: '' } }, context());
    expect(decision.events).toEqual([]);
  });

  it('refuses expired, foreign or mismatched sessions and inactive users', () => {
    const c = { sessionId: 's1', orgId: 'o1', userId: 'u1' };
    expect(codeOf(() => checkSession.decide(withSession(session({ expiresAt: NOW })), c, context()))).toBe('session.not_found');
    expect(codeOf(() => checkSession.decide(withSession(session({ orgId: 'o2' })), c, context()))).toBe('session.not_found');
    expect(codeOf(() => checkSession.decide(withUser(alice()), c, context()))).toBe('session.not_found');
    expect(codeOf(() => checkSession.decide(withSession(session({ userId: 'u2' })), c, context()))).toBe('session.user_mismatch');
    expect(codeOf(() => checkSession.decide(withSession(session(), alice({ state: 'locked' })), c, context()))).toBe('user.locked');
    expect(codeOf(() => checkSession.decide(withSession(session()), { ...c, passwordHash: 'stale' }, context()))).toBe('session.password_invalid');
  });
});

describe('terminateSession', () => {
  it('removes the session and releases its token digest', () => {
    const current = record('s1', session(), owner);
    const decision = terminateSession.decide(withSession(session()), { sessionId: 's1', orgId: 'o1' }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['session.terminated']);
    expect(decision.releases).toEqual([{ scope: SESSION_TOKEN_SCOPE, value: 'digest' }]);
    expect(applyDecision(sessionKind, 's1', current, decision)).toBeUndefined();
    expect(codeOf(() => terminateSession.decide(withUser(alice()), { sessionId: 's1', orgId: 'o1' }, context()))).toBe('session.not_found');
  });
});
