/**
 * The login's verification hold (issue 14): every path that would answer the client (password,
 * TOTP, registration, account choice, a reused browser session, external login) passes here
 * first. When the policy requires a verified email address / phone number that the session's
 * user lacks, the request goes to the `awaitingVerification` step instead (a code is sent when
 * none is pending), or, with prompt=none, fails with `interaction_required`.
 */
import { authRequestMachine, userKind, type BrowserSessionSummary, type ContactChannel, type HumanUser } from '../../../actors/index.js';
import type { AuthFlowDeps } from './auth-flow-deps.js';
import type { AuthMachineSnapshot } from './auth-requests.js';
import { canDeliver, sendContactVerificationCode } from '../../query/contact-verification.js';
import { pendingVerificationOf } from '../../query/contact-verification-policy.js';

interface HeldStep {
  readonly snapshot: AuthMachineSnapshot;
  readonly actions: readonly { readonly type: string }[];
}

/**
 * The step to take instead of issuing the code for `session`, or undefined to issue it. The
 * snapshot is the machine's own state for the hold, resolved with the session in its context.
 */
export async function holdForVerification(deps: AuthFlowDeps, instanceId: string, snapshot: AuthMachineSnapshot, session: BrowserSessionSummary): Promise<HeldStep | undefined> {
  const channel = await pendingVerificationOf(deps, instanceId, session.userId);
  if (channel === undefined) return undefined;
  const context = snapshot.context;
  if (context.prompt.includes('none')) {
    return { snapshot: authRequestMachine.resolveState({ value: 'failed', context: { ...context, failure: 'interaction_required' } }), actions: [{ type: 'rejectRequest' }] };
  }
  await sendCodeUnlessPending(deps, instanceId, session.userId, channel);
  const held = { ...context, session, userId: session.userId, loginName: session.loginName ?? context.loginName };
  return { snapshot: authRequestMachine.resolveState({ value: 'awaitingVerification', context: held }), actions: [] };
}

/** A code for the step unless one for the current address is pending (registration sent one). */
async function sendCodeUnlessPending(deps: AuthFlowDeps, instanceId: string, userId: string, channel: ContactChannel): Promise<void> {
  const record = await deps.actors.readRecord(instanceId, userKind, userId);
  if (record === undefined || record.state.type !== 'human') return;
  if (hasPendingCode(record.state, channel, deps.actors.clock.now())) return;
  if (!(await canDeliver(deps.actors, deps.config, instanceId, channel))) return;
  await sendContactVerificationCode(deps.actors, deps.config, { instanceId, orgId: record.state.orgId, userId, creator: userId }, channel);
}

function hasPendingCode(user: HumanUser, channel: ContactChannel, now: number): boolean {
  const pending = channel === 'email' ? user.emailCode : user.phoneCode;
  return pending !== undefined && pending.expiresAt > now;
}
