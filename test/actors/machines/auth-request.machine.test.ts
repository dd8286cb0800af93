/** The auth-request machine through xstate's pure transition(): prompt / max_age / session decisions and intents. */
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { authRequestMachine, type AuthRequestInput, type BrowserSessionSummary } from '../../../actors/index.js';

const NOW = 1_800_000_000_000;
const alice: BrowserSessionSummary = { sessionId: 's-alice', userId: 'u-alice', authTime: NOW - 60_000, amr: ['pwd'] };
const bob: BrowserSessionSummary = { sessionId: 's-bob', userId: 'u-bob', authTime: NOW - 3_600_000, amr: ['pwd'], loginName: 'bob@example.com' };

const start = (input: Partial<AuthRequestInput>) => initialTransition(authRequestMachine, { prompt: [], sessions: [], now: NOW, ...input });
const intents = (actions: readonly { type: string }[]) => actions.map((a) => a.type).filter((t) => t === 'issueCode' || t === 'rejectRequest');

describe('auth request machine: initial decisions', () => {
  it.each([
    ['no session → login name', {}, 'awaitingLoginName', [], undefined],
    ['one session → code at once', { sessions: [alice] }, 'succeeded', ['issueCode'], undefined],
    ['two sessions → select account', { sessions: [alice, bob] }, 'selectingAccount', [], undefined],
    ['prompt=login ignores sessions', { prompt: ['login'], sessions: [alice] }, 'awaitingLoginName', [], undefined],
    ['prompt=select_account with one session', { prompt: ['select_account'], sessions: [alice] }, 'selectingAccount', [], undefined],
    ['prompt=create → registering', { prompt: ['create'] }, 'registering', [], undefined],
    ['prompt=none without session → login_required', { prompt: ['none'] }, 'failed', ['rejectRequest'], 'login_required'],
    ['prompt=none with one session → code', { prompt: ['none'], sessions: [alice] }, 'succeeded', ['issueCode'], undefined],
    ['prompt=none with two sessions → account_selection_required', { prompt: ['none'], sessions: [alice, bob] }, 'failed', ['rejectRequest'], 'account_selection_required'],
    ['max_age drops old sessions', { maxAge: 600, sessions: [alice, bob] }, 'succeeded', ['issueCode'], undefined],
    ['max_age=0 with prompt=none → login_required', { prompt: ['none'], maxAge: 0, sessions: [alice] }, 'failed', ['rejectRequest'], 'login_required'],
    ['prompt=none with two sessions and a matching login_hint → code', { prompt: ['none'], loginHint: 'Bob@Example.com', sessions: [alice, bob] }, 'succeeded', ['issueCode'], undefined],
    ['id_token_hint keeps the hinted user only', { hintUserId: 'u-bob', sessions: [alice, bob] }, 'succeeded', ['issueCode'], undefined],
  ] as const)('%s', (_, input, state, expectedIntents, failure) => {
    const [snapshot, actions] = start(input as Partial<AuthRequestInput>);
    expect(snapshot.value).toBe(state);
    expect(intents(actions)).toEqual(expectedIntents);
    expect(snapshot.context.failure).toBe(failure);
  });

  it('picks the only session for the code', () => {
    const [snapshot] = start({ sessions: [alice] });
    expect(snapshot.context.session).toEqual(alice);
  });
});

describe('auth request machine: login steps', () => {
  it('login name → password → succeeded with issueCode and the new session', () => {
    const [created] = start({});
    const [named, none] = transition(authRequestMachine, created, { type: 'loginName.submitted', userId: 'u-alice', loginName: 'alice' });
    expect(named.value).toBe('awaitingPassword');
    expect(named.context).toMatchObject({ userId: 'u-alice', loginName: 'alice' });
    expect(intents(none)).toEqual([]);
    const [done, actions] = transition(authRequestMachine, named, { type: 'password.verified', session: alice });
    expect(done.value).toBe('succeeded');
    expect(done.status).toBe('done');
    expect(done.context.session).toEqual(alice);
    expect(intents(actions)).toEqual(['issueCode']);
  });

  it('select account: a known session succeeds, an unknown one changes nothing, other → login name', () => {
    const [selecting] = start({ sessions: [alice, bob] });
    const [same, noActions] = transition(authRequestMachine, selecting, { type: 'account.selected', sessionId: 's-mallory' });
    expect(same.value).toBe('selectingAccount');
    expect(intents(noActions)).toEqual([]);
    const [done, actions] = transition(authRequestMachine, selecting, { type: 'account.selected', sessionId: 's-bob' });
    expect(done.value).toBe('succeeded');
    expect(done.context.session).toEqual(bob);
    expect(intents(actions)).toEqual(['issueCode']);
    const [other] = transition(authRequestMachine, selecting, { type: 'account.other' });
    expect(other.value).toBe('awaitingLoginName');
  });

  it('passwordless passkey not counted as MFA under forced MFA: awaitingPasskey → awaitingOtp with the passkey as first factor; other clears it', () => {
    const [created] = start({});
    const [passkey] = transition(authRequestMachine, created, { type: 'passkey.requested' });
    expect(passkey.value).toBe('awaitingPasskey');
    const [otp, none] = transition(authRequestMachine, passkey, { type: 'passkey.otp.required', userId: 'u-alice', loginName: 'alice', passkeyId: 'pk1', userVerified: true, method: 'totp' });
    expect(otp.value).toBe('awaitingOtp');
    expect(intents(none)).toEqual([]);
    expect(otp.context).toMatchObject({ userId: 'u-alice', loginName: 'alice', passkeyId: 'pk1', passkeyUserVerified: true, otpMethod: 'totp', passwordCheckedAt: undefined, idpId: undefined });
    const [done, actions] = transition(authRequestMachine, otp, { type: 'otp.verified', session: alice });
    expect(done.value).toBe('succeeded');
    expect(intents(actions)).toEqual(['issueCode']);
    const [other] = transition(authRequestMachine, otp, { type: 'account.other' });
    expect(other.value).toBe('awaitingLoginName');
    expect(other.context.passkeyId).toBeUndefined();
    // Control: only the passkey page takes it.
    const [named] = transition(authRequestMachine, created, { type: 'loginName.submitted', userId: 'u-alice', loginName: 'alice' });
    const [still] = transition(authRequestMachine, named, { type: 'passkey.otp.required', userId: 'u-alice', loginName: 'alice', passkeyId: 'pk1', userVerified: true, method: 'totp' });
    expect(still.value).toBe('awaitingPassword');
  });

  it('ignores events the current state does not take', () => {
    const [created] = start({});
    const [next, actions] = transition(authRequestMachine, created, { type: 'password.verified', session: alice });
    expect(next.value).toBe('awaitingLoginName');
    expect(intents(actions)).toEqual([]);
  });

  it('survives persistence: getPersistedSnapshot → resolveState → transition', () => {
    const [created] = start({});
    const [named] = transition(authRequestMachine, created, { type: 'loginName.submitted', userId: 'u-alice', loginName: 'alice' });
    const persisted = JSON.parse(JSON.stringify(authRequestMachine.getPersistedSnapshot(named))) as { value: string; context: typeof named.context };
    const restored = authRequestMachine.resolveState({ value: persisted.value, context: persisted.context });
    const [done, actions] = transition(authRequestMachine, restored, { type: 'password.verified', session: alice });
    expect(done.value).toBe('succeeded');
    expect(intents(actions)).toEqual(['issueCode']);
  });
});

describe('auth request machine: registration', () => {
  const registered = { type: 'registration.completed', userId: 'u-new', loginName: 'newbie@example.com', session: { ...alice, sessionId: 's-new', userId: 'u-new' } } as const;

  it('prompt=create → registering → completed: succeeded with issueCode and the new user’s session', () => {
    const [registering] = start({ prompt: ['create'], sessions: [alice] });
    expect(registering.value).toBe('registering');
    const [done, actions] = transition(authRequestMachine, registering, registered);
    expect(done.value).toBe('succeeded');
    expect(done.status).toBe('done');
    expect(done.context).toMatchObject({ userId: 'u-new', loginName: 'newbie@example.com', session: registered.session });
    expect(intents(actions)).toEqual(['issueCode']);
  });

  it('the register link goes from the login name to registering; "I have an account" goes back', () => {
    const [created] = start({});
    const [registering, none] = transition(authRequestMachine, created, { type: 'registration.requested' });
    expect(registering.value).toBe('registering');
    expect(intents(none)).toEqual([]);
    const [back] = transition(authRequestMachine, registering, { type: 'account.other' });
    expect(back.value).toBe('awaitingLoginName');
  });

  it('takes a completed registration only while registering', () => {
    const [created] = start({});
    const [same, actions] = transition(authRequestMachine, created, registered);
    expect(same.value).toBe('awaitingLoginName');
    expect(intents(actions)).toEqual([]);
    const [password] = transition(authRequestMachine, created, { type: 'loginName.submitted', userId: 'u-alice', loginName: 'alice' });
    const [stillPassword] = transition(authRequestMachine, password, { type: 'registration.requested' });
    expect(stillPassword.value).toBe('awaitingPassword');
  });

  it('survives persistence while registering', () => {
    const [registering] = start({ prompt: ['create'] });
    const persisted = JSON.parse(JSON.stringify(authRequestMachine.getPersistedSnapshot(registering))) as { value: string; context: typeof registering.context };
    const restored = authRequestMachine.resolveState({ value: persisted.value, context: persisted.context });
    const [done, actions] = transition(authRequestMachine, restored, registered);
    expect(done.value).toBe('succeeded');
    expect(intents(actions)).toEqual(['issueCode']);
  });
});

describe('auth request machine: external login', () => {
  const external = { type: 'external.completed', userId: 'u-ext', loginName: 'ext@example.com', session: { ...alice, sessionId: 's-ext', userId: 'u-ext', amr: [] } } as const;

  it('from the login name (or password) step: succeeded with issueCode and the external user’s session', () => {
    const [loginName] = start({ prompt: ['login'], sessions: [] });
    expect(loginName.value).toBe('awaitingLoginName');
    const [done, actions] = transition(authRequestMachine, loginName, external);
    expect(done.value).toBe('succeeded');
    expect(done.context).toMatchObject({ userId: 'u-ext', loginName: 'ext@example.com', session: external.session });
    expect(intents(actions)).toEqual(['issueCode']);
    const [password] = transition(authRequestMachine, loginName, { type: 'loginName.submitted', userId: 'u1', loginName: 'alice' });
    expect(transition(authRequestMachine, password, external)[0].value).toBe('succeeded');
  });

  it('is not taken while selecting an account', () => {
    const [selecting] = start({ prompt: ['select_account'], sessions: [alice] });
    expect(transition(authRequestMachine, selecting, external)[0].value).toBe('selectingAccount');
  });
});

describe('auth request machine: second factor', () => {
  it('waits for the code after an external login of a user with a second factor (control: external.completed issues the code)', () => {
    const [created] = start({});
    const [waiting, waitActions] = transition(authRequestMachine, created, {
      type: 'external.otp.required',
      userId: 'u-alice',
      loginName: 'alice',
      idpId: 'idp-1',
      idpCheckedAt: NOW,
      method: 'sms',
    });
    expect(waiting.value).toBe('awaitingOtp');
    expect(intents(waitActions)).toEqual([]);
    expect(waiting.context).toMatchObject({ userId: 'u-alice', idpId: 'idp-1', otpMethod: 'sms', passwordCheckedAt: undefined });
    const [direct, directActions] = transition(authRequestMachine, created, { type: 'external.completed', userId: 'u-alice', loginName: 'alice', session: alice });
    expect(direct.value).toBe('succeeded');
    expect(intents(directActions)).toEqual(['issueCode']);

    // Switching the factor stays on the code step; only otp.verified issues the code.
    const [switched, switchActions] = transition(authRequestMachine, waiting, { type: 'otp.method.selected', method: 'email' });
    expect(switched.value).toBe('awaitingOtp');
    expect(switched.context.otpMethod).toBe('email');
    expect(intents(switchActions)).toEqual([]);
    const [done, doneActions] = transition(authRequestMachine, switched, { type: 'otp.verified', session: alice });
    expect(done.value).toBe('succeeded');
    expect(intents(doneActions)).toEqual(['issueCode']);
    // Another account forgets the first factor.
    const [other] = transition(authRequestMachine, switched, { type: 'account.other' });
    expect(other.value).toBe('awaitingLoginName');
    expect(other.context).toMatchObject({ idpId: undefined, otpMethod: undefined, passwordCheckedAt: undefined });
  });

  it('starts the code step after the password with the chosen factor (TOTP when none is named)', () => {
    const [named] = transition(authRequestMachine, start({})[0], { type: 'loginName.submitted', userId: 'u-alice', loginName: 'alice' });
    const [sms] = transition(authRequestMachine, named, { type: 'otp.required', passwordCheckedAt: NOW, method: 'sms' });
    expect(sms.context).toMatchObject({ passwordCheckedAt: NOW, otpMethod: 'sms' });
    const [totp] = transition(authRequestMachine, named, { type: 'otp.required', passwordCheckedAt: NOW });
    expect(totp.context.otpMethod).toBe('totp');
  });

  it('enrols a forced second factor after the password or a registration; only its verified code issues the code', () => {
    const [named] = transition(authRequestMachine, start({})[0], { type: 'loginName.submitted', userId: 'u-alice', loginName: 'alice' });
    const [enrolling, enrolActions] = transition(authRequestMachine, named, { type: 'mfa.enrolment.required', passwordCheckedAt: NOW });
    expect(enrolling.value).toBe('enrollingMfa');
    expect(intents(enrolActions)).toEqual([]);
    expect(enrolling.context.passwordCheckedAt).toBe(NOW);
    // control: a password event does not finish the enrolment state; the verified code does
    expect(transition(authRequestMachine, enrolling, { type: 'password.verified', session: alice })[0].value).toBe('enrollingMfa');
    const [done, doneActions] = transition(authRequestMachine, enrolling, { type: 'otp.verified', session: alice });
    expect(done.value).toBe('succeeded');
    expect(intents(doneActions)).toEqual(['issueCode']);
    const [back] = transition(authRequestMachine, enrolling, { type: 'account.other' });
    expect(back.value).toBe('awaitingLoginName');
    expect(back.context.passwordCheckedAt).toBeUndefined();

    const [registering] = start({ prompt: ['create'] });
    expect(registering.value).toBe('registering');
    const [registered] = transition(authRequestMachine, registering, { type: 'registration.mfa.required', userId: 'u-new', loginName: 'new', passwordCheckedAt: NOW });
    expect(registered.value).toBe('enrollingMfa');
    expect(registered.context).toMatchObject({ userId: 'u-new', loginName: 'new', passwordCheckedAt: NOW });
  });
});
