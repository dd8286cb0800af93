/**
 * The POSTed login steps: login name → user lookup (only within the org an org scope of the
 * request names); password → verification with lockout accounting (the instance's max
 * attempts) and a new browser session — for a user with a second factor (TOTP, OTP by SMS or
 * email), first the password (recorded, no session) and then the code (second-factor.ts), the
 * session only with both; account choice. Each
 * turns into an auth-request machine event; a refused input re-renders the step with a message.
 *
 * Account enumeration: unless the instance shows unknown users (user settings
 * `ignoreUnknownUsernames: false`), a login name that finds no user goes on to the password page
 * like a known one, and every refused password — unknown user, wrong password, locked, inactive
 * or password-less user — gets the same message (`loginFailed`) after the time of a real hash
 * check (a dummy hash when the user's own was not checked).
 */
import { transition } from 'xstate';
import { authRequestMachine, type AuthRequestEvent } from '../../actors/index.js';
import { verifyDummyPassword } from '../crypto/password.js';
import { userKind, type User } from '../../actors/index.js';
import { findUserByLoginName, readUserSettings } from '../query/user-auth.js';
import type { HttpReply } from '../http/types.js';
import { settleAuthRequest } from '../oidc/shared/auth-request-flow.js';
import { toMachineSnapshot } from '../oidc/shared/auth-requests.js';
import type { FormParams } from '../oidc/shared/form.js';
import { checkPasswordStep, logInWithPassword, parseSessionCookie, toSessionCookie } from './browser-sessions.js';
import { enterSecondFactorAfterPassword } from './second-factor.js';
import type { LoginContext } from './login-context.js';
import { admitsOrg, loginOrgOf } from './login-org.js';
import { asksSecondFactor, mustEnrolSecondFactor, pagePolicyOf } from './login-policy.js';
import { renderStep } from './render-step.js';

const MAX_INPUT = 1024;
/** The machine's user id for a login name that found no user (hidden unknown user). */
const UNKNOWN_USER = '';

/** Applies an event; an event the current state does not take just shows the current page. */
export async function advance(ctx: LoginContext, event: AuthRequestEvent, headers: Readonly<Record<string, string>> = {}): Promise<HttpReply> {
  const [snapshot, actions] = transition(authRequestMachine, toMachineSnapshot(ctx.stored.machine), event);
  return settleAuthRequest(ctx.deps, ctx.instanceId, ctx.stored, { snapshot, actions }, headers);
}

export async function submitLoginName(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const loginName = form.get('loginName')?.trim() ?? '';
  if (loginName === '' || loginName.length > MAX_INPUT) return renderStep(ctx, 'userNotFound');
  // Login policy: no password step when username/password is off (the same answer for every name).
  if (!(await pagePolicyOf(ctx)).allowUsernamePassword) return renderStep(ctx, 'passwordLoginDisabled');
  const { ignoreUnknownUsernames } = await readUserSettings(ctx.deps.actors, ctx.instanceId);
  const unknown = () => (ignoreUnknownUsernames ? advance(ctx, { type: 'loginName.submitted', userId: UNKNOWN_USER, loginName }) : renderStep(ctx, 'userNotFound'));
  const loginOrg = await loginOrgOf(ctx.deps.actors, ctx.instanceId, ctx.stored.request.scopes);
  if (loginOrg.restricted && loginOrg.orgId === undefined) return unknown();
  const options = loginOrg.restricted && loginOrg.orgId !== undefined ? { orgId: loginOrg.orgId } : {};
  const user = await findUserByLoginName(ctx.deps.actors, ctx.instanceId, loginName, options);
  // A login name of another org (`name@other-domain`, an instance-wide username) is not found here.
  if (user === undefined || user.state.type !== 'human' || !admitsOrg(loginOrg, user.state.orgId)) return unknown();
  return advance(ctx, { type: 'loginName.submitted', userId: user.id, loginName });
}

export async function submitPassword(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const { userId } = ctx.stored.machine.context;
  const password = form.get('password') ?? '';
  if (ctx.stored.machine.value !== 'awaitingPassword' || userId === undefined) return renderStep(ctx);
  if (password === '' || password.length > MAX_INPUT) return renderStep(ctx, 'passwordInvalid');
  if (userId === UNKNOWN_USER) {
    await verifyDummyPassword(password);
    return renderStep(ctx, 'loginFailed');
  }
  const user = await ctx.deps.actors.readRecord(ctx.instanceId, userKind, userId);
  if (user !== undefined && (await asksSecondFactor(ctx.deps.actors, ctx.instanceId, user.state))) return submitFirstFactor(ctx, user.state, userId, password);
  // Login policy: a forced second factor the user does not have is set up right after the password.
  if (await mustEnrolSecondFactor(ctx.deps.actors, ctx.instanceId, user?.state)) return submitFirstFactor(ctx, user!.state, userId, password, 'enrol');
  const login = await logInWithPassword(ctx.deps.actors, ctx.instanceId, userId, password, ctx.req);
  if (!login.ok) {
    if (!(await readUserSettings(ctx.deps.actors, ctx.instanceId)).ignoreUnknownUsernames) return renderStep(ctx, login.error);
    if (login.verified !== true) await verifyDummyPassword(password);
    return renderStep(ctx, 'loginFailed');
  }
  const held = login.held;
  const tokens = [held.token, ...parseSessionCookie(ctx.req.headers.cookie)];
  const cookie = toSessionCookie(tokens, ctx.req.scheme === 'https');
  return advance(ctx, { type: 'password.verified', session: held.session }, { 'set-cookie': cookie });
}

/**
 * The password of a user with a second factor: verified and recorded, then the code is asked for
 * (second-factor.ts) — or, `enrol`, of a user who must set one up first (mfa-enrolment.ts).
 */
async function submitFirstFactor(ctx: LoginContext, user: User, userId: string, password: string, next: 'code' | 'enrol' = 'code'): Promise<HttpReply> {
  const step = await checkPasswordStep(ctx.deps.actors, ctx.instanceId, userId, password, ctx.req);
  if (step.ok && next === 'enrol') return advance(ctx, { type: 'mfa.enrolment.required', passwordCheckedAt: step.checkedAt });
  if (step.ok) return enterSecondFactorAfterPassword(ctx, user, step.checkedAt);
  if (!(await readUserSettings(ctx.deps.actors, ctx.instanceId)).ignoreUnknownUsernames) return renderStep(ctx, step.error);
  if (step.verified !== true) await verifyDummyPassword(password);
  return renderStep(ctx, 'loginFailed');
}

export async function selectAccount(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const sessionId = form.get('sessionId');
  if (sessionId === undefined) return renderStep(ctx);
  return advance(ctx, { type: 'account.selected', sessionId });
}

export async function useOtherAccount(ctx: LoginContext): Promise<HttpReply> {
  return advance(ctx, { type: 'account.other' });
}
