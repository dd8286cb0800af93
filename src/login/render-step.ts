/** Renders the page of the auth request's current machine state (GET of the login page). */
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import { readBrowserSessions } from './browser-sessions.js';
import { canSendMail } from '../delivery/default-smtp.js';
import type { LoginContext } from './login-context.js';
import { idpLinks } from './external/pages.js';
import { renderVerificationStep } from './contact-verification.js';
import { loginIdpsOf } from './external/login-idps.js';
import { renderSecondFactorStep } from './second-factor.js';
import { renderEnrolment } from './mfa-enrolment.js';
import { pagePolicyOf, renderRefusedPage } from './login-policy.js';
import { renderPasskeyPage } from './passkey.js';
import { passwordRules } from './password-rules.js';
import { readUserSettings } from '../query/user-auth.js';
import { renderErrorPage, renderLoginNamePage, renderPasswordPage, renderRegisterPage, renderSelectAccountPage, type RegistrationValues } from './pages.js';

/** `values`: what the registration form keeps when it is shown again with an error. */
export async function renderStep(ctx: LoginContext, error?: MessageKey, values?: RegistrationValues): Promise<HttpReply> {
  const { machine, request } = ctx.stored;
  const withError = error === undefined ? {} : { error };
  switch (machine.value) {
    case 'awaitingLoginName': {
      const hint = request.loginHint;
      const policy = await pagePolicyOf(ctx);
      const idps = policy.allowExternalIdp ? idpLinks(ctx.form, (await loginIdpsOf(ctx)).idps) : [];
      return renderLoginNamePage(ctx.form, { ...(hint === undefined ? {} : { loginHint: hint }), ...withError, idps, canRegister: policy.allowRegister, canPasskey: policy.passwordlessAllowed });
    }
    case 'awaitingPassword': {
      const policy = await pagePolicyOf(ctx);
      if (!policy.allowUsernamePassword) return renderRefusedPage(ctx, 'passwordLoginDisabled');
      const canReset = !policy.hidePasswordReset && (await canSendMail(ctx.deps.actors, ctx.deps.config, ctx.instanceId));
      return renderPasswordPage(ctx.form, { loginName: machine.context.loginName ?? '', canReset, ...withError });
    }
    case 'awaitingOtp':
      return renderSecondFactorStep(ctx, error);
    case 'awaitingPasskey':
      if (!(await pagePolicyOf(ctx)).passwordlessAllowed) return renderRefusedPage(ctx, 'passwordlessDisabled');
      return renderPasskeyPage(ctx, error);
    case 'selectingAccount': {
      const reusable = new Set(machine.context.sessions.map((s) => s.sessionId));
      const held = await readBrowserSessions(ctx.deps.actors, ctx.instanceId, ctx.req.headers.cookie);
      const hint = request.loginHint?.toLowerCase();
      // login_hint preselects: the hinted account comes first.
      const accounts = held
        .filter((h) => reusable.has(h.session.sessionId))
        .map((h) => ({ sessionId: h.session.sessionId, loginName: h.session.loginName }))
        .sort((a, b) => Number(b.loginName.toLowerCase() === hint) - Number(a.loginName.toLowerCase() === hint));
      return renderSelectAccountPage(ctx.form, accounts);
    }
    case 'enrollingMfa':
      return renderEnrolment(ctx, undefined, error);
    case 'awaitingVerification':
      return renderVerificationStep(ctx, error);
    case 'registering': {
      if (!(await pagePolicyOf(ctx)).allowRegister) return renderRefusedPage(ctx, 'registrationDisabled');
      const { passwordComplexity } = await readUserSettings(ctx.deps.actors, ctx.instanceId);
      const rules = passwordRules(ctx.form.tr, passwordComplexity);
      return renderRegisterPage(ctx.form, { ...(values === undefined ? {} : { values }), rules, ...withError });
    }
    default:
      return renderErrorPage(ctx.form.tr, 'authRequestUnknown', 404);
  }
}
