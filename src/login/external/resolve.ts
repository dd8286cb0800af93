/**
 * What happens once the provider identified the external user (seed 000 "Identity provider
 * (IDP)" options), and the answers to the prompt:
 *
 * 1. An account linked to the external identity (`user.idp_link` claim) logs in straight away;
 *    with `isAutoUpdate` its profile (names, email) is first updated from the provider's claims.
 * 2. Else auto linking (`username` / `email`: exactly one user with that verified email) proposes
 *    an account; the user confirms the link on the prompt.
 * 3. Else `isAutoCreation` creates the account from the claims, linked, and logs it in.
 * 4. Else the prompt offers what the options allow: linking another account with its password
 *    (`isManualLinkingAllowed`) and creating an account (`isManualCreationAllowed`); with neither
 *    the login is refused.
 *
 * The login then finishes like a password login: a session (with an IDP check) for the user,
 * the session cookie, and the machine's `external.completed` → the client gets its code. A
 * user with a second factor is asked for it first, like after a password (`finish`).
 */
import { z } from 'zod';
import {
  addHumanUser,
  addUserIdpLink,
  AppError,
  IDP_LINK_SCOPE,
  idpLinkKey,
  orgKind,
  patchUser,
  userKind,
  type ActiveIdp,
  type AggregateRecord,
  type ErrorCode,
  type HumanUser,
  type User,
} from '../../../actors/index.js';
import { verifyDummyPassword } from '../../crypto/password.js';
import { findUserByLoginName, readUserSettings } from '../../query/user-auth.js';
import type { HttpReply } from '../../http/types.js';
import type { FormParams } from '../../oidc/shared/form.js';
import { checkPasswordStep, cookieWithSession, logInWithIdp, logInWithPassword, preferredLoginName, type HeldSession } from '../browser-sessions.js';
import { enterSecondFactorAfterIdp } from '../second-factor.js';
import { asksSecondFactor, externalLoginNeedsSecondFactor, renderRefusedPage } from '../login-policy.js';
import type { MessageKey } from '../../i18n/index.js';
import type { LoginContext } from '../login-context.js';
import { admitsOrg, type LoginOrg } from '../login-org.js';
import { renderErrorPage } from '../pages.js';
import { renderStep } from '../render-step.js';
import { advance } from '../steps.js';
import { activeLoginIdp, type LoginIdps } from './login-idps.js';
import { dropIdentified, readIdentified, saveIdentified } from './pending.js';
import { renderExternalPrompt, type ExternalCreationValues } from './pages.js';
import type { ExternalUser } from './provider.js';

const MAX_INPUT = 1024;
/** Error codes the page answers with a message instead of an error page (a misspelt code fails typecheck). */
const REFUSALS: Readonly<Partial<Record<ErrorCode, MessageKey>>> = {
  'user.username_taken': 'usernameTaken',
  'user.exists': 'usernameTaken',
  'user.idp_link_taken': 'externalLinkTaken',
  'org.not_found': 'registerOrgUnknown',
};

const name = z.string().trim().min(1).max(200);
const creationForm = z.object({
  username: z.string().trim().min(1).max(200).regex(/^[^\s]+$/u),
  givenName: name,
  familyName: name,
  email: z.union([z.literal(''), z.email().max(200)]),
});

type Human = AggregateRecord<HumanUser>;

/** The steps an external login can finish from (the login name page offers the IDPs). */
export function acceptsExternalLogin(ctx: LoginContext): boolean {
  return ctx.stored.machine.value === 'awaitingLoginName' || ctx.stored.machine.value === 'awaitingPassword';
}

/** The callback's last step: the provider said who the user is. */
export async function resolveExternalUser(ctx: LoginContext, idp: ActiveIdp, login: LoginIdps, ext: ExternalUser): Promise<HttpReply> {
  const linked = await linkedUser(ctx, idp.id, ext.externalUserId, login.loginOrg);
  if (linked === 'elsewhere') return renderErrorPage(ctx.form.tr, 'userNotFound', 403);
  if (linked !== undefined) {
    if (idp.options.isAutoUpdate) await updateFromProvider(ctx, linked, ext);
    return finish(ctx, linked, idp.id);
  }
  const proposed = await proposedUser(ctx, idp, login.loginOrg, ext);
  if (proposed === undefined && idp.options.isAutoCreation && login.orgId !== undefined) {
    const created = await createLinkedUser(ctx, login.orgId, idp.id, ext, creationValuesOf(ext));
    if (typeof created !== 'string') return finish(ctx, created, idp.id);
    // A taken username falls through to the prompt (manual creation lets the user pick another).
  }
  await saveIdentified(ctx.deps.ttl, ctx.instanceId, ctx.stored.id, { idpId: idp.id, user: ext }, ctx.deps.clock.now());
  return showPrompt(ctx, idp, login, ext);
}

/** "Link account and continue": links the account auto linking proposes (recomputed, never taken from the form). */
export async function confirmProposedLink(ctx: LoginContext): Promise<HttpReply> {
  const pending = await pendingIdentity(ctx);
  if (!('idp' in pending)) return pending.reply;
  const { idp, login, ext } = pending;
  const proposed = await proposedUser(ctx, idp, login.loginOrg, ext);
  if (proposed === undefined) return showPrompt(ctx, idp, login, ext, 'userNotFound');
  const refusal = await link(ctx, proposed, idp.id, ext);
  return refusal === undefined ? finish(ctx, proposed, idp.id) : showPrompt(ctx, idp, login, ext, refusal);
}

/**
 * Manual linking: the user proves an existing account with its password (lockout counted), then
 * it is linked. An account with a second factor is never linked on its password alone: after a
 * right password (checked first, so the refusal reveals nothing to someone without it) the
 * prompt says to sign in with the account directly; no session, no link.
 */
export async function linkOtherAccount(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const pending = await pendingIdentity(ctx);
  if (!('idp' in pending)) return pending.reply;
  const { idp, login, ext } = pending;
  if (!idp.options.isManualLinkingAllowed) return showPrompt(ctx, idp, login, ext);
  const loginName = form.get('loginName')?.trim() ?? '';
  const password = form.get('password') ?? '';
  if (loginName === '' || loginName.length > MAX_INPUT) return showPrompt(ctx, idp, login, ext, 'userNotFound');
  if (password === '' || password.length > MAX_INPUT) return showPrompt(ctx, idp, login, ext, 'passwordInvalid');
  const options = login.loginOrg.restricted && login.loginOrg.orgId !== undefined ? { orgId: login.loginOrg.orgId } : {};
  const user = await findUserByLoginName(ctx.deps.actors, ctx.instanceId, loginName, options);
  // Unknown users hidden (user settings): one message for every refusal, after a hash check's time (see ../steps.ts).
  const { ignoreUnknownUsernames } = await readUserSettings(ctx.deps.actors, ctx.instanceId);
  if (user === undefined || user.state.type !== 'human' || !admitsOrg(login.loginOrg, user.state.orgId)) {
    if (!ignoreUnknownUsernames) return showPrompt(ctx, idp, login, ext, 'userNotFound');
    await verifyDummyPassword(password);
    return showPrompt(ctx, idp, login, ext, 'loginFailed');
  }
  if (await asksSecondFactor(ctx.deps.actors, ctx.instanceId, user.state)) {
    const step = await checkPasswordStep(ctx.deps.actors, ctx.instanceId, user.id, password, ctx.req);
    if (step.ok) return showPrompt(ctx, idp, login, ext, 'linkNeedsSecondFactor');
    if (!ignoreUnknownUsernames) return showPrompt(ctx, idp, login, ext, step.error);
    if (step.verified !== true) await verifyDummyPassword(password);
    return showPrompt(ctx, idp, login, ext, 'loginFailed');
  }
  const proven = await logInWithPassword(ctx.deps.actors, ctx.instanceId, user.id, password, ctx.req);
  if (!proven.ok) {
    if (!ignoreUnknownUsernames) return showPrompt(ctx, idp, login, ext, proven.error);
    if (proven.verified !== true) await verifyDummyPassword(password);
    return showPrompt(ctx, idp, login, ext, 'loginFailed');
  }
  const refusal = await link(ctx, user as Human, idp.id, ext);
  return refusal === undefined ? complete(ctx, proven.held) : showPrompt(ctx, idp, login, ext, refusal);
}

/** Manual creation: the account from the (edited) claims, linked to the external identity. */
export async function createExternalAccount(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const pending = await pendingIdentity(ctx);
  if (!('idp' in pending)) return pending.reply;
  const { idp, login, ext } = pending;
  if (!idp.options.isManualCreationAllowed || login.orgId === undefined) return showPrompt(ctx, idp, login, ext);
  const text = (key: string): string => (form.get(key) ?? '').slice(0, MAX_INPUT);
  const values: ExternalCreationValues = { username: text('username'), givenName: text('givenName'), familyName: text('familyName'), email: text('email') };
  const parsed = creationForm.safeParse(values);
  if (!parsed.success) return showPrompt(ctx, idp, login, ext, 'registerFieldsMissing', values);
  const created = await createLinkedUser(ctx, login.orgId, idp.id, ext, parsed.data);
  return typeof created === 'string' ? showPrompt(ctx, idp, login, ext, created, values) : finish(ctx, created, idp.id);
}

type PendingIdentity = { readonly idp: ActiveIdp; readonly login: LoginIdps; readonly ext: ExternalUser } | { readonly reply: HttpReply };

/** The identified external user of this auth request, while its IDP is still active here. */
async function pendingIdentity(ctx: LoginContext): Promise<PendingIdentity> {
  if (!acceptsExternalLogin(ctx)) return { reply: await renderStep(ctx) };
  const identified = await readIdentified(ctx.deps.ttl, ctx.instanceId, ctx.stored.id);
  if (identified === undefined) return { reply: renderErrorPage(ctx.form.tr, 'externalStateInvalid', 400) };
  const found = await activeLoginIdp(ctx, identified.idpId);
  if (found === undefined) return { reply: renderErrorPage(ctx.form.tr, 'externalIdpInactive', 403) };
  return { idp: found.idp, login: found.login, ext: identified.user };
}

async function showPrompt(ctx: LoginContext, idp: ActiveIdp, login: LoginIdps, ext: ExternalUser, error?: MessageKey, values?: ExternalCreationValues): Promise<HttpReply> {
  const proposed = await proposedUser(ctx, idp, login.loginOrg, ext);
  const { isManualLinkingAllowed, isManualCreationAllowed } = idp.options;
  const canCreate = isManualCreationAllowed && login.orgId !== undefined;
  if (proposed === undefined && !isManualLinkingAllowed && !canCreate) return renderErrorPage(ctx.form.tr, 'externalNoAccount', 403);
  return renderExternalPrompt(ctx.form, {
    ...(proposed === undefined ? {} : { proposed: proposed.state.username }),
    manualLinking: isManualLinkingAllowed,
    ...(canCreate ? { creation: values ?? creationValuesOf(ext) } : {}),
    ...(error === undefined ? {} : { error }),
  });
}

/** The user linked to the external identity; 'elsewhere' when it may not log in here (another org). */
async function linkedUser(ctx: LoginContext, idpId: string, externalUserId: string, loginOrg: LoginOrg): Promise<Human | 'elsewhere' | undefined> {
  const { actors } = ctx.deps;
  const userId = await actors.findUnique(ctx.instanceId, IDP_LINK_SCOPE, idpLinkKey(idpId, externalUserId));
  const user = userId === undefined ? undefined : await actors.readRecord(ctx.instanceId, userKind, userId);
  // A user of a removed organization is gone (read-time tombstone).
  if (user === undefined || user.state.type !== 'human' || (await actors.readRecord(ctx.instanceId, orgKind, user.state.orgId)) === undefined) return undefined;
  return admitsOrg(loginOrg, user.state.orgId) ? (user as Human) : 'elsewhere';
}

/** The account auto linking proposes: by username, or the one user with this verified email (several: none). */
async function proposedUser(ctx: LoginContext, idp: ActiveIdp, loginOrg: LoginOrg, ext: ExternalUser): Promise<Human | undefined> {
  const { actors } = ctx.deps;
  if (idp.options.autoLinking === 'username') {
    const options = loginOrg.restricted && loginOrg.orgId !== undefined ? { orgId: loginOrg.orgId } : {};
    if (loginOrg.restricted && loginOrg.orgId === undefined) return undefined;
    const user = await findUserByLoginName(actors, ctx.instanceId, ext.externalUsername, options);
    return user !== undefined && user.state.type === 'human' && admitsOrg(loginOrg, user.state.orgId) ? (user as Human) : undefined;
  }
  // Only an email the provider verified may take over a local account's verified email.
  if (idp.options.autoLinking !== 'email' || !ext.emailVerified) return undefined;
  const wanted = ext.email.toLowerCase();
  const matches: Human[] = [];
  // A scan: login is not a hot path, and emails are not unique claims (several users may share one).
  for await (const user of actors.scanRecords(ctx.instanceId, userKind)) {
    if (!isHumanWithEmail(user, wanted) || !admitsOrg(loginOrg, user.state.orgId)) continue;
    if ((await actors.readRecord(ctx.instanceId, orgKind, user.state.orgId)) === undefined) continue;
    matches.push(user);
    if (matches.length > 1) return undefined;
  }
  return matches[0];
}

function isHumanWithEmail(user: AggregateRecord<User>, email: string): user is Human {
  return user.state.type === 'human' && user.state.email.verified && user.state.email.address.toLowerCase() === email;
}

function creationValuesOf(ext: ExternalUser): ExternalCreationValues {
  return { username: ext.externalUsername.replace(/\s+/gu, '_'), givenName: ext.givenName, familyName: ext.familyName, email: ext.email };
}

/** Adds the user with the link in one append; a message key when refused (username or identity taken). */
async function createLinkedUser(ctx: LoginContext, orgId: string, idpId: string, ext: ExternalUser, values: ExternalCreationValues): Promise<Human | MessageKey> {
  const { actors } = ctx.deps;
  const userId = actors.ids.next();
  try {
    await actors.ask(
      { kind: 'org', instanceId: ctx.instanceId, orgId },
      addHumanUser,
      {
        userId,
        orgId,
        username: values.username,
        givenName: values.givenName,
        familyName: values.familyName,
        ...(ext.displayName === '' ? {} : { displayName: ext.displayName }),
        nickname: '',
        preferredLanguage: ctx.form.tr.lang,
        gender: 'unspecified',
        // Verified only when it is the address the provider verified.
        email: { address: values.email, verified: ext.emailVerified && values.email.toLowerCase() === ext.email.toLowerCase() },
        passwordHash: '',
        passwordChangeRequired: false,
        idpLink: { idpId, externalUserId: ext.externalUserId, externalUsername: ext.externalUsername },
      },
      { creator: userId },
    );
  } catch (error) {
    const refused = error instanceof AppError ? REFUSALS[error.code] : undefined;
    if (refused === undefined) throw error;
    return refused;
  }
  const user = await actors.readRecord(ctx.instanceId, userKind, userId);
  if (user === undefined || user.state.type !== 'human') return 'userNotFound';
  return user as Human;
}

async function link(ctx: LoginContext, user: Human, idpId: string, ext: ExternalUser): Promise<MessageKey | undefined> {
  try {
    await ctx.deps.actors.ask(
      { kind: 'org', instanceId: ctx.instanceId, orgId: user.state.orgId },
      addUserIdpLink,
      { orgId: user.state.orgId, userId: user.id, link: { idpId, externalUserId: ext.externalUserId, externalUsername: ext.externalUsername } },
      { creator: user.id },
    );
    return undefined;
  } catch (error) {
    const refused = error instanceof AppError ? (REFUSALS[error.code] ?? (error.code.startsWith('user.') ? 'userNotFound' : undefined)) : undefined;
    if (refused === undefined) throw error;
    return refused;
  }
}

/** isAutoUpdate: names and email follow the provider (patchUser records only what changed). */
async function updateFromProvider(ctx: LoginContext, user: Human, ext: ExternalUser): Promise<void> {
  await ctx.deps.actors.ask(
    { kind: 'org', instanceId: ctx.instanceId, orgId: user.state.orgId },
    patchUser,
    {
      orgId: user.state.orgId,
      userId: user.id,
      profile: { givenName: ext.givenName, familyName: ext.familyName, displayName: ext.displayName },
      ...(ext.email === '' ? {} : { email: { address: ext.email, verified: ext.emailVerified } }),
    },
    { creator: user.id },
  );
}

/**
 * Logs the resolved user in with an IDP-checked session — or, for a user with a second factor
 * (TOTP, OTP by SMS or email), asks for it first: the external login is only the first factor,
 * the session is created with both (../second-factor.ts).
 */
async function finish(ctx: LoginContext, user: Human, idpId: string): Promise<HttpReply> {
  if (await asksSecondFactor(ctx.deps.actors, ctx.instanceId, user.state)) {
    await dropIdentified(ctx.deps.ttl, ctx.instanceId, ctx.stored.id);
    if (ctx.req.notes !== undefined) ctx.req.notes.login = 'idp:second_factor';
    return enterSecondFactorAfterIdp(ctx, user, await preferredLoginName(ctx.deps.actors, ctx.instanceId, user), idpId);
  }
  if (await externalLoginNeedsSecondFactor(ctx.deps.actors, ctx.instanceId, user.state)) {
    await dropIdentified(ctx.deps.ttl, ctx.instanceId, ctx.stored.id);
    return renderRefusedPage(ctx, 'mfaSetUpWithPassword');
  }
  const login = await logInWithIdp(ctx.deps.actors, ctx.instanceId, user, idpId, ctx.req);
  if (!login.ok) return renderStep(ctx, login.error);
  return complete(ctx, login.held);
}

/** Continues the auth request exactly like after a password login. */
async function complete(ctx: LoginContext, held: HeldSession): Promise<HttpReply> {
  await dropIdentified(ctx.deps.ttl, ctx.instanceId, ctx.stored.id);
  const cookie = cookieWithSession(held, ctx.req, ctx.req.scheme === 'https');
  return advance(ctx, { type: 'external.completed', userId: held.session.userId, loginName: held.session.loginName, session: held.session }, { 'set-cookie': cookie });
}
