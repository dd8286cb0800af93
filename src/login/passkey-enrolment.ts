/**
 * A passkey (or security key) set up during login as the second factor (an enrolment option,
 * ./mfa-enrolment.ts; the policy's factor `u2f`). Each render stores a new single-use
 * registration challenge for the auth request (TTL store, SHA-256 digest only, 5 minutes on the
 * node's clock) and puts the creation options (RP ID = the issuer's host, a discoverable
 * credential, user verification required, the user's passkeys excluded) in the form. The login
 * UI's own script (/ui/login/passkey.js, the same file as for signing in; CSP `script-src
 * 'self'` on this page only) calls navigator.credentials.create and posts the answer. The
 * attestation is verified with the same code as the users API's VerifyPasskeyRegistration
 * (src/crypto/webauthn.ts: challenge, RP ID, origin = the issuer origin, user verification),
 * the passkey is added (`user.human.passkey.added`) and the session holds the password and the
 * passkey (amr pwd user mfa, like the passkey as second factor).
 */
import { addPasskey, AppError, orgKind, type HumanUser } from '../../actors/index.js';
import {
  challengeDigest,
  creationOptions,
  newChallenge,
  registrationResponseSchema,
  verifyRegistration,
  WEBAUTHN_CHALLENGE_TTL_MS,
  type RegistrationResponse,
  type RelyingParty,
} from '../crypto/webauthn.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import { requireInstance } from '../oidc/shared/endpoint.js';
import type { FormParams } from '../oidc/shared/form.js';
import { loginNamesOf } from '../query/user-auth.js';
import { createSecondFactorSession, parseSessionCookie, toSessionCookie } from './browser-sessions.js';
import type { LoginContext } from './login-context.js';
import type { EnrollingUser, EnrolmentOption, EnrolmentPageFrame } from './mfa-enrolment.js';
import { errorText, renderLoginPage } from './pages.js';
import { relyingPartyOf } from './passkey.js';
import { PASSKEY_SCRIPT_PATH } from './passkey-script.js';
import { advance } from './steps.js';

/** TTL store table of enrolment challenges (key: the auth request id). */
const ENROLMENTS = 'passkey_login_enrolments';
/** A posted attestation ("none") is well under a few kilobytes. */
const MAX_CREDENTIAL = 32_768;

interface PendingEnrolment extends RelyingParty {
  readonly challengeDigest: string;
  readonly userId: string;
}

function parseCredential(text: string | undefined): RegistrationResponse | undefined {
  if (text === undefined || text === '' || text.length > MAX_CREDENTIAL) return undefined;
  try {
    const parsed = registrationResponseSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The page with a new challenge (the previous one, if any, is replaced). */
async function page(ctx: LoginContext, user: EnrollingUser, frame: EnrolmentPageFrame): Promise<HttpReply> {
  const { actors } = ctx.deps;
  const human: HumanUser = user.record.state;
  const rp = relyingPartyOf(ctx);
  const challenge = newChallenge();
  const pending: PendingEnrolment = { challengeDigest: challengeDigest(challenge), userId: user.record.id, ...rp };
  await ctx.deps.ttl.put(ctx.instanceId, ENROLMENTS, ctx.stored.id, pending, ctx.deps.clock.now() + WEBAUTHN_CHALLENGE_TTL_MS);
  const org = await actors.readRecord(ctx.instanceId, orgKind, human.orgId);
  const loginName = loginNamesOf(human.username, org?.state).preferredLoginName;
  const options = await creationOptions({
    rpName: (await requireInstance(ctx.deps.tenants, ctx.req)).name,
    rpId: rp.rpId,
    userId: user.record.id,
    userName: loginName,
    userDisplayName: human.profile.displayName || loginName,
    challenge,
    exclude: human.passkeys ?? [],
  });
  const tr = ctx.form.tr;
  const data = {
    displayName: loginName,
    options: JSON.stringify(options),
    scriptPath: PASSKEY_SCRIPT_PATH,
    errorText: errorText(ctx.form, frame.error),
    others: frame.others,
    submit: tr.t('passkeyEnrolSubmit'),
    noScript: tr.t('passkeyNoScript'),
  };
  return renderLoginPage(ctx.form, 'mfa-enrol-passkey', tr.t('mfaEnrolTitle'), data, frame.error === undefined ? 200 : 400, { script: true });
}

export const passkeyEnrolment: EnrolmentOption = {
  factor: 'u2f',
  label: 'passkeyEnrolName',
  available: async () => true,
  render: (ctx, user, frame) => page(ctx, user, frame),
  async submit(ctx: LoginContext, user: EnrollingUser, form: FormParams, frame: EnrolmentPageFrame): Promise<HttpReply> {
    const refuse = (error: MessageKey) => page(ctx, user, { ...frame, error });
    const { actors } = ctx.deps;
    const human = user.record.state;
    const pending = (await ctx.deps.ttl.take(ctx.instanceId, ENROLMENTS, ctx.stored.id)) as PendingEnrolment | undefined;
    const response = parseCredential(form.get('credential'));
    if (ctx.req.notes !== undefined) ctx.req.notes.login = 'passkey:enrolment';
    if (human.state === 'locked') return refuse('userLocked');
    if (human.passwordChangedAt > user.passwordCheckedAt) return refuse('loginFailed');
    if (pending === undefined || pending.userId !== user.record.id || response === undefined) return refuse('passkeyFailed');
    const verified = await verifyRegistration(response, pending);
    if (!verified.ok || !verified.userVerified) return refuse('passkeyFailed');
    const passkeyId = actors.ids.next();
    try {
      await actors.ask(
        { kind: 'org', instanceId: ctx.instanceId, orgId: human.orgId },
        addPasskey,
        { orgId: human.orgId, userId: user.record.id, passkey: { id: passkeyId, name: 'Passkey', ...verified.credential } },
        { creator: user.record.id },
      );
    } catch (error) {
      // The same credential registered meanwhile, or the user changed: no passkey, the page again.
      if (error instanceof AppError && (error.kind === 'already_exists' || error.kind === 'failed_precondition' || error.kind === 'not_found')) return refuse('passkeyFailed');
      throw error;
    }
    const login = await createSecondFactorSession(actors, ctx.instanceId, user.record.id, { passwordCheckedAt: user.passwordCheckedAt }, { passkey: { id: passkeyId, userVerified: true } }, ctx.req);
    if (!login.ok) return refuse(login.error);
    if (ctx.req.notes !== undefined) ctx.req.notes.login = 'passkey:enrolled';
    const cookie = toSessionCookie([login.held.token, ...parseSessionCookie(ctx.req.headers.cookie)], ctx.req.scheme === 'https');
    return advance(ctx, { type: 'otp.verified', session: login.held.session }, { 'set-cookie': cookie });
  },
};
