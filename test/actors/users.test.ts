/** User deciders and evolve: given state, when command, then events / claims / error code. */
import { describe, expect, it } from 'vitest';
import { foldRecord } from '../../actors/kernel/aggregate.js';
import { userSettingsKind, DEFAULT_USER_SETTINGS } from '../../actors/instance/user-settings.js';
import { setUserSettings } from '../../actors/instance/commands/set-user-settings.js';
import { membershipId, membershipKind } from '../../actors/instance/membership.js';
import { userKind, type HumanUser, type User } from '../../actors/organization/user.js';
import type { UserEvent } from '../../actors/organization/user-events.js';
import { addHumanUser, type AddHumanUser } from '../../actors/organization/commands/add-human-user.js';
import { addMachineUser } from '../../actors/organization/commands/add-machine-user.js';
import { patchUser } from '../../actors/organization/commands/patch-user.js';
import { removeUser } from '../../actors/organization/commands/remove-user.js';
import { changeUserState } from '../../actors/organization/commands/change-user-state.js';
import { recordPasswordCheck } from '../../actors/organization/commands/record-password-check.js';
import { setUserPassword } from '../../actors/organization/commands/set-user-password.js';
import { setUserMetadata } from '../../actors/organization/commands/set-user-metadata.js';
import { removeMachineSecret } from '../../actors/organization/commands/remove-machine-secret.js';
import { addMachineKey } from '../../actors/organization/commands/add-machine-key.js';
import { generateRecoveryCodes, recordOtpCheck, removeTotp, startTotp, verifyTotp } from '../../actors/organization/commands/totp.js';
import { orgLockoutKind } from '../../actors/organization/org-lockout.js';
import { codeOf, context, given, NOW, record } from './decide.fixture.js';
import { humanUser, machineUser, org, owner, withUser } from './user.fixture.js';
import { recorded } from './fold.fixture.js';

const instanceWide = {
  kind: userSettingsKind,
  record: record('i1', { ...DEFAULT_USER_SETTINGS, usernameUniquePerInstance: true, maxPasswordAttempts: 2 }, { type: 'instance', id: 'i1' }),
};

const newHuman: AddHumanUser = {
  userId: 'u1',
  orgId: 'o1',
  username: 'Alice',
  givenName: 'Alice',
  familyName: 'Smith',
  nickname: '',
  preferredLanguage: 'en',
  gender: 'female',
  email: { address: 'a@example.com', verified: false },
  passwordHash: '',
  passwordChangeRequired: true,
};

const alice = (over: Partial<HumanUser> = {}): HumanUser => humanUser({ passwordHash: '$argon2id$old', ...over });
const bot = machineUser;

describe('adding users', () => {
  it('adds a human with a default display name and claims the username per org', () => {
    const decision = addHumanUser.decide(given([org]), newHuman, context());
    expect(decision.events.map((e) => e.type)).toEqual(['user.human.added']);
    expect(decision.events[0]!.payload).toMatchObject({ profile: { displayName: 'Alice Smith' }, passwordChangeRequired: false });
    expect(decision.claims).toEqual([{ scope: 'user.username', value: 'o1:alice', holder: 'u1' }]);
  });

  it('also claims the username instance-wide while the policy says so, and remembers it', () => {
    const decision = addMachineUser.decide(
      given([org, instanceWide]),
      { userId: 'u1', orgId: 'o1', username: 'Bot', name: 'Bot', description: '', accessTokenType: 'jwt' },
      context(),
    );
    expect(decision.claims).toEqual([
      { scope: 'user.username', value: 'o1:bot', holder: 'u1' },
      { scope: 'user.username.instance', value: 'bot', holder: 'u1' },
    ]);
    const state = foldRecord(userKind, 'u1', undefined, [{ ...decision.events[0]!, instanceId: 'i1', version: 1, position: 1, createdAt: NOW }])?.state;
    expect(state).toMatchObject({ type: 'machine', usernameInstanceWide: true, tokens: [], keys: [], secretDigest: '' });
  });

  it('refuses a removed org or an existing id', () => {
    expect(codeOf(() => addHumanUser.decide(given([]), newHuman, context()))).toBe('org.not_found');
    expect(codeOf(() => addHumanUser.decide(given([org, { kind: userKind, id: 'u1', version: 3 }]), newHuman, context()))).toBe('user.exists');
  });

  it('folds the first slice\'s machine events unchanged', () => {
    const events = [
      { type: 'user.machine.added', payload: { orgId: 'o1', username: 'admin', name: 'A', description: '', accessTokenType: 'bearer' } },
      { type: 'user.token.added', payload: { id: 't1', digest: 'd', expiresAt: 5 } },
    ].map((e, i) => ({ ...e, aggregateType: 'user', aggregateId: 'u1', owner, creator: '', instanceId: 'i1', version: i + 1, position: i + 1, createdAt: 100 + i }));
    const folded = foldRecord(userKind, 'u1', undefined, events);
    expect(folded?.state).toMatchObject({ type: 'machine', username: 'admin', usernameInstanceWide: false, tokens: [{ id: 't1', createdAt: 101 }] });
  });
});

describe('patchUser', () => {
  it('records nothing when nothing changes', () => {
    const loaded = withUser(alice());
    const c = { orgId: 'o1', userId: 'u1', username: 'alice', profile: { givenName: 'Alice' }, email: { address: 'a@example.com' } };
    expect(patchUser.decide(loaded, c, context()).events).toEqual([]);
  });

  it('records only what changed; a new email is unverified unless said otherwise', () => {
    const decision = patchUser.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', profile: { nickname: 'ali', givenName: 'Alice' }, email: { address: 'b@example.com' } }, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([
      ['user.human.changed', { nickname: 'ali' }],
      ['user.human.email.changed', { address: 'b@example.com', verified: false }],
    ]);
    const verifyOnly = patchUser.decide(withUser(alice({ email: { address: 'a@example.com', verified: false } })), { orgId: 'o1', userId: 'u1', email: { address: 'a@example.com', verified: true } }, context());
    expect(verifyOnly.events.map((e) => e.type)).toEqual(['user.human.email.verified']);
  });

  it('re-claims a renamed username and keeps the claim on a case-only rename', () => {
    const renamed = patchUser.decide(withUser(alice({ usernameInstanceWide: true })), { orgId: 'o1', userId: 'u1', username: 'alicia' }, context());
    expect(renamed.claims).toEqual([{ scope: 'user.username', value: 'o1:alicia', holder: 'u1' }]);
    expect(renamed.releases).toEqual([
      { scope: 'user.username', value: 'o1:alice' },
      { scope: 'user.username.instance', value: 'alice' },
    ]);
    const recased = patchUser.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', username: 'ALICE' }, context());
    expect(recased.events.map((e) => e.type)).toEqual(['user.username.changed']);
    expect([recased.claims, recased.releases]).toEqual([[], []]);
  });

  it('refuses fields of the other user type and users of another org', () => {
    expect(codeOf(() => patchUser.decide(withUser(bot()), { orgId: 'o1', userId: 'u1', profile: { nickname: 'x' } }, context()))).toBe('user.not_human');
    expect(codeOf(() => patchUser.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', machine: { name: 'x' } }, context()))).toBe('user.not_machine');
    expect(codeOf(() => patchUser.decide(withUser(alice()), { orgId: 'o2', userId: 'u1' }, context()))).toBe('user.not_found');
  });
});

describe('lifecycle', () => {
  const change = (user: User, action: 'deactivate' | 'reactivate' | 'lock' | 'unlock') => () =>
    changeUserState.decide(withUser(user), { orgId: 'o1', userId: 'u1', action }, context()).events.map((e) => e.type);
  it('moves between states, treats the current state as a no-op and refuses skipped steps', () => {
    expect(change(alice(), 'lock')()).toEqual(['user.locked']);
    expect(change(alice({ state: 'locked' }), 'lock')()).toEqual([]);
    expect(change(alice({ state: 'locked' }), 'unlock')()).toEqual(['user.unlocked']);
    expect(change(alice({ state: 'locked' }), 'deactivate')()).toEqual(['user.deactivated']);
    expect(change(alice({ state: 'inactive' }), 'reactivate')()).toEqual(['user.reactivated']);
    expect(codeOf(change(alice({ state: 'locked' }), 'reactivate'))).toBe('user.locked');
    expect(codeOf(change(alice({ state: 'inactive' }), 'lock'))).toBe('user.inactive');
  });

  it('unlocking resets the failed password counter', () => {
    const locked = alice({ state: 'locked', failedPasswordAttempts: 3 });
    const next = userKind.evolve(locked, recorded(userKind, { type: 'user.unlocked', payload: {} }));
    expect(next).toMatchObject({ state: 'active', failedPasswordAttempts: 0 });
  });
});

describe('passwords', () => {
  it('counts failures and locks at the instance maximum; success resets', () => {
    const check = (user: HumanUser, succeeded: boolean) =>
      recordPasswordCheck.decide(withUser(user, instanceWide), { orgId: 'o1', userId: 'u1', succeeded, checkedHash: '$argon2id$old' }, context());
    const first = check(alice(), false);
    expect(first.events.map((e) => e.type)).toEqual(['user.human.password.check.failed']);
    expect(first.reply({ events: [], record: () => undefined })).toEqual({ locked: false, failedAttempts: 1 });
    const second = check(alice({ failedPasswordAttempts: 1 }), false);
    expect(second.events.map((e) => e.type)).toEqual(['user.human.password.check.failed', 'user.locked']);
    expect(check(alice({ failedPasswordAttempts: 1 }), true).events.map((e) => e.type)).toEqual(['user.human.password.check.succeeded']);
  });

  it('ignores a check against a replaced hash, and a self-service change over a newer password', () => {
    const stale = recordPasswordCheck.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', succeeded: false, checkedHash: '$argon2id$older' }, context());
    expect(stale.events).toEqual([]);
    const c = { orgId: 'o1', userId: 'u1', passwordHash: '$argon2id$new', changeRequired: false, verifiedHash: '$argon2id$older' };
    expect(codeOf(() => setUserPassword.decide(withUser(alice()), c, context()))).toBe('user.password.changed_meanwhile');
    expect(codeOf(() => setUserPassword.decide(withUser(bot()), { ...c, verifiedHash: undefined }, context()))).toBe('user.not_human');
  });
});

describe('machine credentials and removal', () => {
  it('refuses expired keys and absent secrets', () => {
    const key = { orgId: 'o1', userId: 'u1', keyId: 'k1', publicKey: 'PEM', expiresAt: NOW - 1 };
    expect(codeOf(() => addMachineKey.decide(withUser(bot()), key, context()))).toBe('key.expiry_in_past');
    expect(codeOf(() => removeMachineSecret.decide(withUser(bot()), { orgId: 'o1', userId: 'u1' }, context()))).toBe('user.secret_not_found');
  });

  it('metadata: same value is a no-op', () => {
    const user = alice({ metadata: [{ key: 'k', value: 'dg==' }] });
    expect(setUserMetadata.decide(withUser(user), { orgId: 'o1', userId: 'u1', key: 'k', value: 'dg==' }, context()).events).toEqual([]);
    expect(setUserMetadata.decide(withUser(user), { orgId: 'o1', userId: 'u1', key: 'k', value: 'dw==' }, context()).events).toHaveLength(1);
  });

  it('removal releases the username claims and every token digest', () => {
    const decision = removeUser.decide(withUser(bot({ usernameInstanceWide: true })), { orgId: 'o1', userId: 'u1' }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['user.removed']);
    expect(decision.releases).toEqual([
      { scope: 'user.username', value: 'o1:bot' },
      { scope: 'user.username.instance', value: 'bot' },
      { scope: 'user.pat', value: 'd1' },
    ]);
  });
});

describe('removing an instance owner', () => {
  const ownership = (userId: string, orgId = 'o1') => ({
    kind: membershipKind,
    record: record(membershipId('instance', 'i1', userId), { contextType: 'instance', contextId: 'i1', userId, roles: ['IAM_OWNER'] }, { type: 'instance', id: 'i1' }),
  });
  it('needs another live owner', () => {
    const alone = withUser(bot(), ownership('u1'));
    expect(codeOf(() => removeUser.decide(alone, { orgId: 'o1', userId: 'u1', otherOwners: [] }, context()))).toBe('membership.last_owner');
    expect(removeUser.decide(alone, { orgId: 'o1', userId: 'u1' }, context()).events).toHaveLength(1); // internal callers opt out
    const other = { kind: userKind, record: record('u2', bot({ username: 'other' }), owner) };
    const withOther = withUser(bot(), ownership('u1'), ownership('u2'), other);
    const c = { orgId: 'o1', userId: 'u1', otherOwners: [{ userId: 'u2', orgId: 'o1' }] };
    expect(removeUser.decide(withOther, c, context()).events.map((e) => e.type)).toEqual(['user.removed']);
  });
});

describe('user settings', () => {
  it('records only the parts that change', () => {
    const decision = setUserSettings.decide(given([]), { passwordComplexity: { minLength: 8, hasSymbol: true }, usernameUniquePerInstance: false }, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([
      ['instance.policy.password.complexity.set', { minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true }],
    ]);
    // The defaults: lockout at 10 failed passwords, unknown login names hidden (#12 item 4).
    expect(setUserSettings.decide(given([]), { maxPasswordAttempts: 10, ignoreUnknownUsernames: true }, context()).events).toEqual([]);
    expect(setUserSettings.decide(given([]), { maxPasswordAttempts: 0, ignoreUnknownUsernames: false }, context()).events.map((e) => [e.type, e.payload])).toEqual([
      ['instance.policy.lockout.set', { maxPasswordAttempts: 0 }],
      ['instance.policy.login.unknown_usernames.set', { ignore: false }],
    ]);
  });
});

describe('TOTP', () => {
  const otpSettings = { kind: userSettingsKind, record: record('i1', { ...DEFAULT_USER_SETTINGS, maxOtpAttempts: 2 }, { type: 'instance', id: 'i1' }) };
  const enrolled = (over: Partial<HumanUser> = {}) => alice({ totp: { sealedSecret: 'sealed:S', verified: true, lastStep: 100 }, ...over });
  const check = (user: HumanUser, c: { step?: number; recoveryDigest?: string; sealedSecret?: string }) => {
    const decision = recordOtpCheck.decide(withUser(user, otpSettings), { orgId: 'o1', userId: 'u1', sealedSecret: 'sealed:S', ...c }, context());
    return { types: decision.events.map((e) => e.type), reply: decision.reply({ events: [], record: () => undefined }) };
  };
  const fold = (user: User, e: UserEvent) => userKind.evolve(user, recorded(userKind, e)) as HumanUser;

  it('seals the secret on enrolment; a verified one must be removed before a new one', () => {
    const started = startTotp.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', secret: 'S' }, context());
    expect(started.events.map((e) => [e.type, e.payload])).toEqual([['user.human.mfa.otp.added', { sealedSecret: 'sealed:S' }]]);
    expect(codeOf(() => startTotp.decide(withUser(enrolled()), { orgId: 'o1', userId: 'u1', secret: 'T' }, context()))).toBe('user.totp.exists');
    expect(codeOf(() => startTotp.decide(withUser(bot()), { orgId: 'o1', userId: 'u1', secret: 'T' }, context()))).toBe('user.not_human');
    const unverified = alice({ totp: { sealedSecret: 'sealed:S', verified: false, lastStep: 0 } });
    expect(codeOf(() => verifyTotp.decide(withUser(unverified), { orgId: 'o1', userId: 'u1', sealedSecret: 'sealed:OTHER', step: 5 }, context()))).toBe('user.totp.changed');
    expect(verifyTotp.decide(withUser(unverified), { orgId: 'o1', userId: 'u1', sealedSecret: 'sealed:S', step: 5 }, context()).events.map((e) => e.type)).toEqual(['user.human.mfa.otp.verified']);
    expect(codeOf(() => removeTotp.decide(withUser(alice()), { orgId: 'o1', userId: 'u1' }, context()))).toBe('user.totp.not_found');
  });

  it('accepts a step after the last accepted one; refuses the same step (replay) and counts it', () => {
    expect(check(enrolled(), { step: 101 })).toEqual({ types: ['user.human.mfa.otp.check.succeeded'], reply: { outcome: 'valid', lockedNow: false } });
    expect(check(enrolled(), { step: 100 })).toEqual({ types: ['user.human.mfa.otp.check.failed'], reply: { outcome: 'replayed', lockedNow: false } });
    expect(check(enrolled(), {})).toEqual({ types: ['user.human.mfa.otp.check.failed'], reply: { outcome: 'invalid', lockedNow: false } });
    const after = fold(enrolled(), { type: 'user.human.mfa.otp.check.succeeded', payload: { step: 101 } });
    expect(after.totp?.lastStep).toBe(101);
  });

  it('locks at maxOtpAttempts; records nothing for a locked user or a replaced secret', () => {
    expect(check(enrolled({ failedOtpAttempts: 1 }), {})).toEqual({ types: ['user.human.mfa.otp.check.failed', 'user.locked'], reply: { outcome: 'invalid', lockedNow: true } });
    expect(check(enrolled({ state: 'locked' }), { step: 101 })).toEqual({ types: [], reply: { outcome: 'locked', lockedNow: false } });
    expect(check(enrolled(), { step: 101, sealedSecret: 'sealed:OLD' })).toEqual({ types: [], reply: { outcome: 'stale', lockedNow: false } });
    const unlocked = fold(enrolled({ state: 'locked', failedOtpAttempts: 2 }), { type: 'user.unlocked', payload: {} });
    expect(unlocked).toMatchObject({ state: 'active', failedOtpAttempts: 0 });
  });

  it('locks at the organization’s own maxOtpAttempts when it set one (control: the instance’s 2 without it)', () => {
    const orgLockout = { kind: orgLockoutKind, record: record('o1', { maxOtpAttempts: 4 }, { type: 'org', id: 'o1' }) };
    const checkIn = (failed: number) =>
      recordOtpCheck.decide(withUser(enrolled({ failedOtpAttempts: failed }), otpSettings, orgLockout), { orgId: 'o1', userId: 'u1', sealedSecret: 'sealed:S' }, context()).events.map((e) => e.type);
    expect(checkIn(1)).toEqual(['user.human.mfa.otp.check.failed']);
    expect(checkIn(3)).toEqual(['user.human.mfa.otp.check.failed', 'user.locked']);
    expect(check(enrolled({ failedOtpAttempts: 1 }), {}).types).toEqual(['user.human.mfa.otp.check.failed', 'user.locked']);
  });

  it('uses a recovery code once; needs a verified TOTP to generate; removal drops the codes', () => {
    expect(codeOf(() => generateRecoveryCodes.decide(withUser(alice()), { orgId: 'o1', userId: 'u1', digests: ['d1'] }, context()))).toBe('user.totp.not_verified');
    const withCodes = fold(enrolled(), { type: 'user.human.mfa.recovery.codes.generated', payload: { digests: ['d1', 'd2'] } });
    expect(check(withCodes, { recoveryDigest: 'd1' })).toEqual({ types: ['user.human.mfa.recovery.code.used'], reply: { outcome: 'valid', lockedNow: false } });
    const used = fold(withCodes, { type: 'user.human.mfa.recovery.code.used', payload: { digest: 'd1' } });
    expect(used.recoveryCodes).toEqual(['d2']);
    expect(check(used, { recoveryDigest: 'd1' }).reply.outcome).toBe('invalid');
    expect(fold(used, { type: 'user.human.mfa.otp.removed', payload: {} })).not.toHaveProperty('recoveryCodes');
  });
});
