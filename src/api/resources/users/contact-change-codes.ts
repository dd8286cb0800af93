/**
 * PatchUser's follow-up (issue 14): a new email address or phone number that is not verified
 * gets a verification code when the instance can deliver it (mail / SMS). The patch itself has
 * been recorded already; an instance that cannot deliver just sends nothing.
 */
import type { AggregateRecord, ContactChannel, PatchUser, ResourceDetails, User } from '../../../../actors/index.js';
import { sendContactCodeIfPossible } from '../../../query/contact-verification.js';
import type { CallContext } from '../../call-context.js';

/** The details after the last code sent, or undefined when none was sent. */
export async function sendCodesForChanges(call: CallContext, before: AggregateRecord<User>, command: PatchUser): Promise<ResourceDetails | undefined> {
  if (before.state.type !== 'human') return undefined;
  const changed: ContactChannel[] = [];
  if (command.email !== undefined && command.email.address !== before.state.email.address && command.email.verified !== true) changed.push('email');
  if (command.phone !== undefined && command.phone.number !== '' && command.phone.number !== before.state.phone.number && command.phone.verified !== true) changed.push('phone');
  let details: ResourceDetails | undefined;
  for (const channel of changed) {
    const target = { instanceId: call.instance.id, orgId: before.state.orgId, userId: command.userId, creator: call.caller.userId };
    details = (await sendContactCodeIfPossible(call.services.actors, call.services.config, target, channel)) ?? details;
  }
  return details;
}
