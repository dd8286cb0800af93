/**
 * Self-registration (prompt=create, or the login name page's register link): the form is
 * checked at the edge (shape, password complexity of the instance, argon2id hash), the human
 * user is added to the auth request's organization (`urn:platform:iam:org:id:{id}` scope, else
 * the instance's default organization), then a password-checked session is created for it and
 * the machine's `registration.completed` event finishes the request like a password login.
 * The email address gets a verification code when the instance can send mail; when the policy
 * requires a verified address, the login then waits for it (src/oidc/shared/contact-verification-gate.ts).
 */
import { z } from 'zod';
import { addHumanUser, AppError, instanceSettingsKind, userKind, type ErrorCode } from '../../actors/index.js';
import { readUserSettings } from '../query/user-auth.js';
import { sendContactCodeIfPossible } from '../query/contact-verification.js';
import { complexityViolations, hashPassword } from '../crypto/password.js';
import type { HttpReply } from '../http/types.js';
import type { FormParams } from '../oidc/shared/form.js';
import { checkPasswordStep, logInWithPassword, parseSessionCookie, toSessionCookie } from './browser-sessions.js';
import { mustEnrolSecondFactor } from './login-policy.js';
import type { MessageKey } from '../i18n/index.js';
import type { LoginContext } from './login-context.js';
import type { RegistrationValues } from './pages.js';
import { renderStep } from './render-step.js';
import { advance } from './steps.js';

export const ORG_ID_SCOPE_PREFIX = 'urn:platform:iam:org:id:';

const name = z.string().trim().min(1).max(200);
const registration = z.object({
  username: z.string().trim().min(1).max(200).regex(/^[^\s]+$/u),
  givenName: name,
  familyName: name,
  email: z.string().trim().max(200),
  password: z.string().min(1).max(256),
  passwordRepeat: z.string().max(256),
});
const emailAddress = z.email();

type Registration = z.infer<typeof registration>;

/** Error codes the page answers with a message instead of an error page (a misspelt code fails typecheck). */
const REFUSALS: Readonly<Partial<Record<ErrorCode, MessageKey>>> = {
  'user.username_taken': 'usernameTaken',
  'user.exists': 'usernameTaken',
  'org.not_found': 'registerOrgUnknown',
};

/** The organization of the auth request: its org id scope, else the instance's default organization. */
export async function registrationOrgId(ctx: LoginContext): Promise<string | undefined> {
  const scoped = ctx.stored.request.scopes.find((s) => s.startsWith(ORG_ID_SCOPE_PREFIX))?.slice(ORG_ID_SCOPE_PREFIX.length);
  if (scoped !== undefined && scoped !== '') return scoped;
  const settings = await ctx.deps.actors.readRecord(ctx.instanceId, instanceSettingsKind, ctx.instanceId);
  return settings?.state.defaultOrgId || undefined;
}

export function requestRegistration(ctx: LoginContext): Promise<HttpReply> {
  return advance(ctx, { type: 'registration.requested' });
}

/** The checks before anything is written; a message key when the form is refused. */
async function refusalOf(ctx: LoginContext, input: Registration): Promise<MessageKey | undefined> {
  if (!emailAddress.safeParse(input.email).success) return 'emailInvalid';
  if (input.password !== input.passwordRepeat) return 'passwordMismatch';
  const settings = await readUserSettings(ctx.deps.actors, ctx.instanceId);
  return complexityViolations(input.password, settings.passwordComplexity).length > 0 ? 'passwordTooWeak' : undefined;
}

export async function submitRegistration(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  if (ctx.stored.machine.value !== 'registering') return renderStep(ctx);
  const text = (key: string): string => form.get(key) ?? '';
  const values: RegistrationValues = { username: text('username'), givenName: text('givenName'), familyName: text('familyName'), email: text('email') };
  const parsed = registration.safeParse({ ...values, password: text('password'), passwordRepeat: text('passwordRepeat') });
  if (!parsed.success) return renderStep(ctx, 'registerFieldsMissing', values);
  const input = parsed.data;
  const refusal = await refusalOf(ctx, input);
  if (refusal !== undefined) return renderStep(ctx, refusal, values);
  const orgId = await registrationOrgId(ctx);
  if (orgId === undefined) return renderStep(ctx, 'registerOrgUnknown', values);
  const userId = ctx.deps.actors.ids.next();
  try {
    await ctx.deps.actors.ask(
      { kind: 'org', instanceId: ctx.instanceId, orgId },
      addHumanUser,
      {
        userId,
        orgId,
        username: input.username,
        givenName: input.givenName,
        familyName: input.familyName,
        nickname: '',
        preferredLanguage: ctx.form.tr.lang,
        gender: 'unspecified',
        email: { address: input.email, verified: false },
        passwordHash: await hashPassword(input.password),
        passwordChangeRequired: false,
      },
      { creator: userId },
    );
  } catch (error) {
    const refused = error instanceof AppError ? REFUSALS[error.code] : undefined;
    if (refused === undefined) throw error;
    return renderStep(ctx, refused, values);
  }
  // The new address gets a verification code when the instance can send mail (issue 14).
  await sendContactCodeIfPossible(ctx.deps.actors, ctx.deps.config, { instanceId: ctx.instanceId, orgId, userId, creator: userId }, 'email');
  // Login policy: a forced second factor is set up before the first session (as after a password).
  const created = (await ctx.deps.actors.readRecord(ctx.instanceId, userKind, userId))?.state;
  if (await mustEnrolSecondFactor(ctx.deps.actors, ctx.instanceId, created)) {
    const step = await checkPasswordStep(ctx.deps.actors, ctx.instanceId, userId, input.password, ctx.req);
    if (!step.ok) return renderStep(ctx, step.error, values);
    return advance(ctx, { type: 'registration.mfa.required', userId, loginName: input.username, passwordCheckedAt: step.checkedAt });
  }
  const login = await logInWithPassword(ctx.deps.actors, ctx.instanceId, userId, input.password, ctx.req);
  if (!login.ok) return renderStep(ctx, login.error, values);
  const { held } = login;
  const cookie = toSessionCookie([held.token, ...parseSessionCookie(ctx.req.headers.cookie)], ctx.req.scheme === 'https');
  return advance(ctx, { type: 'registration.completed', userId, loginName: held.session.loginName, session: held.session }, { 'set-cookie': cookie });
}
