/**
 * Password reset in the login UI (issue 14), from the password step: "Forgot password?" sends a
 * code by mail through the durable outbox (src/query/password-reset.ts) and shows the reset page;
 * the code and a new password (the instance's complexity rules shown on the page) set the
 * password, end every session of the user, and the login continues as after the password step
 * with the new password (a second factor is still asked for).
 * A login name that found no user, or a user without an email address, sees the same page and
 * no mail is sent (no account enumeration). Both steps count against the password rate limits.
 */
import { AppError, userKind } from '../../actors/index.js';
import type { HttpReply } from '../http/types.js';
import type { FormParams } from '../oidc/shared/form.js';
import { resetPasswordByCode, sendPasswordResetCode } from '../query/password-reset.js';
import { readUserSettings } from '../query/user-auth.js';
import type { MessageKey } from '../i18n/index.js';
import type { LoginContext } from './login-context.js';
import { renderPasswordResetPage } from './pages.js';
import { passwordRules } from './password-rules.js';
import { renderStep } from './render-step.js';
import { submitPassword } from './steps.js';

const MAX_INPUT = 1024;

const REFUSALS: Readonly<Record<string, MessageKey>> = {
  'user.password.code_invalid': 'resetCodeInvalid',
  'user.password.code_expired': 'resetCodeExpired',
  'user.password.complexity': 'passwordTooWeak',
};

async function resetPage(ctx: LoginContext, error?: MessageKey): Promise<HttpReply> {
  const { passwordComplexity } = await readUserSettings(ctx.deps.actors, ctx.instanceId);
  const rules = passwordRules(ctx.form.tr, passwordComplexity);
  return renderPasswordResetPage(ctx.form, { loginName: ctx.stored.machine.context.loginName ?? '', rules, ...(error === undefined ? {} : { error }) });
}

/** "Forgot password?" (or "Send a new code"): queues a code by mail and shows the reset page. */
export async function requestPasswordResetStep(ctx: LoginContext): Promise<HttpReply> {
  const { userId } = ctx.stored.machine.context;
  if (ctx.stored.machine.value !== 'awaitingPassword' || userId === undefined) return renderStep(ctx);
  if (userId !== '') {
    const user = await ctx.deps.actors.readRecord(ctx.instanceId, userKind, userId);
    if (user !== undefined && user.state.type === 'human' && user.state.email.address !== '') {
      try {
        await sendPasswordResetCode(ctx.deps.actors, ctx.deps.config, { instanceId: ctx.instanceId, orgId: user.state.orgId, userId, creator: userId });
      } catch (error) {
        if (!(error instanceof AppError) || error.kind !== 'failed_precondition') throw error;
        if (error.code === 'delivery.mail_unavailable') return renderStep(ctx);
      }
    }
  }
  return resetPage(ctx);
}

/** The code and the new password: sets it, ends the user's sessions, continues the login. */
export async function submitPasswordResetStep(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const { userId } = ctx.stored.machine.context;
  if (ctx.stored.machine.value !== 'awaitingPassword' || userId === undefined) return renderStep(ctx);
  const code = (form.get('code') ?? '').trim();
  const password = form.get('password') ?? '';
  if (code === '' || code.length > MAX_INPUT) return resetPage(ctx, 'resetCodeInvalid');
  if (password === '' || password.length > MAX_INPUT) return resetPage(ctx, 'passwordTooWeak');
  if (password !== (form.get('passwordRepeat') ?? '')) return resetPage(ctx, 'passwordMismatch');
  if (userId === '') return resetPage(ctx, 'resetCodeInvalid');
  const user = await ctx.deps.actors.readRecord(ctx.instanceId, userKind, userId);
  if (user === undefined) return resetPage(ctx, 'resetCodeInvalid');
  try {
    await resetPasswordByCode(ctx.deps.actors, { instanceId: ctx.instanceId, orgId: user.state.orgId, userId, creator: userId }, code, password, 'password');
  } catch (error) {
    const refused = error instanceof AppError ? REFUSALS[error.code] : undefined;
    if (refused === undefined) throw error;
    return resetPage(ctx, refused);
  }
  // The login goes on as after the password step with the new password (a second factor, when
  // the user has one, is still asked for).
  return submitPassword(ctx, new Map([['password', password]]));
}
