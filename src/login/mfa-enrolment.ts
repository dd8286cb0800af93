/**
 * Enrolment of a second factor during login (issue 14 "Enrolment during login"): a user whose
 * organization's login policy forces a second factor (forceMfa, or forceMfaLocalOnly for a
 * local login) and who has none is led here right after the password (machine state
 * `enrollingMfa`, the password check remembered, no session yet). The page offers the
 * enrolment options the policy's `secondFactors` allow and the instance can serve; the first
 * is shown, the others are buttons. Setting one up and proving it with a code finishes the
 * login with a session holding both checks.
 *
 * ENROLMENT_OPTIONS is the registry: one entry per second factor. TOTP is in ./totp-enrolment.ts,
 * OTP by email / SMS (to the verified address / number) in ./otp-enrolment.ts, a passkey /
 * security key in ./passkey-enrolment.ts; another factor adds its own file and one line below.
 */
import { userKind, type AggregateRecord, type SecondFactorType, type User } from '../../actors/index.js';
import type { HttpReply } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import type { FormParams } from '../oidc/shared/form.js';
import type { LoginContext } from './login-context.js';
import { renderRefusedPage, userPolicyOf } from './login-policy.js';
import { renderStep } from './render-step.js';
import { otpEmailEnrolment, otpSmsEnrolment } from './otp-enrolment.js';
import { passkeyEnrolment } from './passkey-enrolment.js';
import { totpEnrolment } from './totp-enrolment.js';

/** A human user in the middle of a login whose password was checked at `passwordCheckedAt`. */
export interface EnrollingUser {
  readonly record: AggregateRecord<User & { type: 'human' }>;
  readonly passwordCheckedAt: number;
}

/** What the enrolment page shows besides the option's own content. */
export interface EnrolmentPageFrame {
  /** The other options (buttons posting `mfa.enrol.choose` with `factor`). */
  readonly others: readonly { readonly factor: SecondFactorType; readonly label: string }[];
  readonly error?: MessageKey;
}

export interface EnrolmentOption {
  /** The policy's name of the factor (`secondFactors`). */
  readonly factor: SecondFactorType;
  /** The option's name on the chooser's buttons. */
  readonly label: MessageKey;
  /** Whether the instance can serve it now (e.g. a mail provider for OTP by email). */
  available(ctx: LoginContext, user: EnrollingUser): Promise<boolean>;
  /** The option's page (GET, or again after a refused code). */
  render(ctx: LoginContext, user: EnrollingUser, frame: EnrolmentPageFrame): Promise<HttpReply>;
  /** The posted form of the option's page (action `mfa.enrol`): finishes the login or shows the page again. */
  submit(ctx: LoginContext, user: EnrollingUser, form: FormParams, frame: EnrolmentPageFrame): Promise<HttpReply>;
}

/** Every second factor that can be set up during login, in the order the page offers them. */
export const ENROLMENT_OPTIONS: readonly EnrolmentOption[] = [totpEnrolment, otpEmailEnrolment, otpSmsEnrolment, passkeyEnrolment];

/** The user of the login in state `enrollingMfa`, undefined when the state does not hold. */
async function enrollingUser(ctx: LoginContext): Promise<EnrollingUser | undefined> {
  const { userId, passwordCheckedAt } = ctx.stored.machine.context;
  if (ctx.stored.machine.value !== 'enrollingMfa' || userId === undefined || userId === '' || passwordCheckedAt === undefined) return undefined;
  const record = await ctx.deps.actors.readRecord(ctx.instanceId, userKind, userId);
  if (record === undefined || record.state.type !== 'human') return undefined;
  return { record: record as EnrollingUser['record'], passwordCheckedAt };
}

/** The options the user's policy allows and the instance serves. */
async function optionsFor(ctx: LoginContext, user: EnrollingUser): Promise<EnrolmentOption[]> {
  const policy = await userPolicyOf(ctx.deps.actors, ctx.instanceId, user.record.state);
  const options: EnrolmentOption[] = [];
  for (const option of ENROLMENT_OPTIONS) if (policy.secondFactors.includes(option.factor) && (await option.available(ctx, user))) options.push(option);
  return options;
}

function frameOf(ctx: LoginContext, options: readonly EnrolmentOption[], shown: EnrolmentOption, error?: MessageKey): EnrolmentPageFrame {
  const others = options.filter((o) => o !== shown).map((o) => ({ factor: o.factor, label: ctx.form.tr.t(o.label) }));
  return { others, ...(error === undefined ? {} : { error }) };
}

/** The enrolment page of state `enrollingMfa`: `factor` (a chooser button) or the first option. */
export async function renderEnrolment(ctx: LoginContext, factor?: string, error?: MessageKey): Promise<HttpReply> {
  const user = await enrollingUser(ctx);
  if (user === undefined) return renderStep(ctx);
  const options = await optionsFor(ctx, user);
  const shown = options.find((o) => o.factor === factor) ?? options[0];
  if (shown === undefined) return renderRefusedPage(ctx, 'mfaEnrolNone', 409);
  return shown.render(ctx, user, frameOf(ctx, options, shown, error));
}

/** `mfa.enrol.choose`: another option's page. */
export async function chooseEnrolment(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  return renderEnrolment(ctx, form.get('factor'));
}

/** `mfa.enrol`: the posted form of the option named by `factor`. */
export async function submitEnrolment(ctx: LoginContext, form: FormParams): Promise<HttpReply> {
  const user = await enrollingUser(ctx);
  if (user === undefined) return renderStep(ctx);
  const options = await optionsFor(ctx, user);
  const option = options.find((o) => o.factor === form.get('factor'));
  if (option === undefined) return renderEnrolment(ctx);
  return option.submit(ctx, user, form, frameOf(ctx, options, option));
}
