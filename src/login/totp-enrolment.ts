/**
 * TOTP set up during login (an enrolment option, ./mfa-enrolment.ts): the page shows the new
 * secret as a QR code of its otpauth:// URI, rendered on the server as inline SVG (uqr: no
 * script, no image request), and as text for typing in; the first code from the app proves it
 * (RFC 6238 through otpauth, src/crypto/totp.ts). The secret is the user's unverified TOTP
 * enrolment (stored sealed), kept across reloads of the page. A correct code verifies it and
 * creates a session with the password and TOTP checks (amr pwd otp mfa).
 */
import { AppError, orgKind, startTotp, userKind, verifyTotp } from '../../actors/index.js';
import { generateTotpSecret, matchTotp, TOTP_CODE, totpUri } from '../crypto/totp.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import { requireInstance } from '../oidc/shared/endpoint.js';
import type { FormParams } from '../oidc/shared/form.js';
import { loginNamesOf } from '../query/user-auth.js';
import { lazyModule } from '../runtime/lazy-module.js';
import { createHeldSession, logInWithTotp, parseSessionCookie, toSessionCookie } from './browser-sessions.js';
import type { LoginContext } from './login-context.js';
import type { EnrollingUser, EnrolmentOption, EnrolmentPageFrame } from './mfa-enrolment.js';
import { errorText, renderLoginPage } from './pages.js';
import { advance } from './steps.js';

const MAX_CODE = 64;

/** uqr is loaded with the first enrolment page that shows a QR code, not at start (#13). */
const uqrModule = lazyModule(() => import('uqr'));

/** The secret of the user's unverified enrolment, starting one when there is none. */
async function pendingSecret(ctx: LoginContext, user: EnrollingUser): Promise<string | undefined> {
  const { actors } = ctx.deps;
  const human = user.record.state;
  if (human.type !== 'human' || human.totp?.verified === true) return undefined;
  if (human.totp !== undefined) return actors.sealer.open(human.totp.sealedSecret);
  const secret = generateTotpSecret();
  await actors.ask({ kind: 'org', instanceId: ctx.instanceId, orgId: human.orgId }, startTotp, { orgId: human.orgId, userId: user.record.id, secret }, { creator: user.record.id });
  return secret;
}

async function page(ctx: LoginContext, user: EnrollingUser, frame: EnrolmentPageFrame, status?: number): Promise<HttpReply> {
  const { actors } = ctx.deps;
  const secret = await pendingSecret(ctx, user);
  const org = await actors.readRecord(ctx.instanceId, orgKind, user.record.state.orgId);
  const accountName = loginNamesOf(user.record.state.username, org?.state).preferredLoginName;
  const issuer = (await requireInstance(ctx.deps.tenants, ctx.req)).name;
  // The SVG is the library's output for our own URI (paths only, no text from the request): written raw.
  // A quiet zone of four modules (ISO/IEC 18004) so that scanners find it on any page colour.
  const qrSvg = secret === undefined ? undefined : (await uqrModule()).renderSVG(totpUri(secret, issuer, accountName), { ecc: 'M', pixelSize: 4, border: 4 });
  const data = {
    qrSvg,
    secret: secret === undefined ? undefined : secret.replace(/(.{4})/g, '$1 ').trim(),
    displayName: accountName,
    others: frame.others,
    errorText: errorText(ctx.form, frame.error),
  };
  return renderLoginPage(ctx.form, 'mfa-enrol-totp', ctx.form.tr.t('mfaEnrolTitle'), data, status ?? (frame.error === undefined ? 200 : 400));
}

async function refuse(ctx: LoginContext, user: EnrollingUser, frame: EnrolmentPageFrame, error: MessageKey): Promise<HttpReply> {
  return page(ctx, user, { ...frame, error });
}

export const totpEnrolment: EnrolmentOption = {
  factor: 'totp',
  label: 'totpEnrolName',
  available: async () => true,
  render: (ctx, user, frame) => page(ctx, user, frame),
  async submit(ctx: LoginContext, user: EnrollingUser, form: FormParams, frame: EnrolmentPageFrame): Promise<HttpReply> {
    const { actors } = ctx.deps;
    const code = (form.get('code') ?? '').trim().slice(0, MAX_CODE);
    const human = user.record.state;
    if (human.type !== 'human') return refuse(ctx, user, frame, 'loginFailed');
    // Enrolled meanwhile (another tab, the API): the code is an ordinary second step.
    if (human.totp?.verified === true) {
      const login = await logInWithTotp(actors, ctx.instanceId, user.record.id, code, { passwordCheckedAt: user.passwordCheckedAt }, ctx.req);
      if (!login.ok) return refuse(ctx, user, frame, login.error);
      return advance(ctx, { type: 'otp.verified', session: login.held.session }, { 'set-cookie': toSessionCookie([login.held.token, ...parseSessionCookie(ctx.req.headers.cookie)], ctx.req.scheme === 'https') });
    }
    if (human.state === 'locked') return refuse(ctx, user, frame, 'userLocked');
    if (human.passwordChangedAt > user.passwordCheckedAt) return refuse(ctx, user, frame, 'loginFailed');
    if (human.totp === undefined || !TOTP_CODE.test(code)) return refuse(ctx, user, frame, 'otpInvalid');
    const step = matchTotp(actors.sealer.open(human.totp.sealedSecret), code, actors.clock.now());
    if (step === undefined) return refuse(ctx, user, frame, 'otpInvalid');
    try {
      await actors.ask({ kind: 'org', instanceId: ctx.instanceId, orgId: human.orgId }, verifyTotp, { orgId: human.orgId, userId: user.record.id, sealedSecret: human.totp.sealedSecret, step }, { creator: user.record.id });
    } catch (error) {
      // Restarted or verified meanwhile: the page shows the current state.
      if (error instanceof AppError && (error.code === 'user.totp.changed' || error.code === 'user.totp.already_verified')) return refuse(ctx, user, frame, 'otpInvalid');
      throw error;
    }
    const after = await actors.readRecord(ctx.instanceId, userKind, user.record.id);
    if (after === undefined || after.state.type !== 'human') return refuse(ctx, user, frame, 'userNotFound');
    const held = await createHeldSession(actors, ctx.instanceId, after, { verifiedPasswordHash: after.state.passwordHash, totpChecked: true }, ctx.req);
    if (ctx.req.notes !== undefined) ctx.req.notes.login = 'otp:enrolled';
    const cookie = toSessionCookie([held.token, ...parseSessionCookie(ctx.req.headers.cookie)], ctx.req.scheme === 'https');
    return advance(ctx, { type: 'otp.verified', session: held.session }, { 'set-cookie': cookie });
  },
};
