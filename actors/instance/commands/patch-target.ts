/**
 * Changes a target; only fields that differ are recorded, and a patch that changes nothing
 * records nothing. A rotation (reference `expiration_signing_key`) always records a new
 * sealed key; the previous key keeps signing until `now + graceMs` (0: dropped at once).
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { TARGET_NAME_SCOPE, targetKind, targetNameKey, type Target, type TargetExecutionType, type TargetType } from '../target.js';

export interface PatchTarget {
  readonly targetId: string;
  readonly name?: string;
  readonly endpoint?: { readonly targetType: TargetType; readonly url: string };
  readonly timeoutNanos?: number;
  readonly executionType?: TargetExecutionType;
  /** A new plaintext key and how long the previous one keeps signing. */
  readonly rotation?: { readonly signingKey: string; readonly graceMs: number };
}

/** `target.patch`: records `action.target.changed` with the changed fields only. */
export const patchTarget: CommandHandler<PatchTarget, ResourceDetails> = {
  load: (c) => [ref(targetKind, c.targetId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(targetKind, c.targetId).record;
    if (current === undefined) throw notFound('target.not_found', 'target not found');
    const owner = instanceOwner(ctx.instanceId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.targetId, record: current, owner });
    const changes = changedFields(current.state, c);
    if (c.rotation !== undefined) {
      Object.assign(changes, {
        signingKey: ctx.sealer.seal(c.rotation.signingKey),
        previousSigningKey: c.rotation.graceMs > 0 ? current.state.signingKey : '',
        previousKeyExpiresAt: c.rotation.graceMs > 0 ? ctx.now + c.rotation.graceMs : 0,
      });
    }
    if (Object.keys(changes).length === 0) return { events: [], reply };
    const newName = changes.name;
    const renamed = newName !== undefined && targetNameKey(newName) !== targetNameKey(current.state.name);
    return {
      events: [{ aggregateType: targetKind.type, aggregateId: c.targetId, type: 'action.target.changed', owner, creator: ctx.creator, payload: changes }],
      claims: renamed ? [{ scope: TARGET_NAME_SCOPE, value: targetNameKey(newName), holder: c.targetId }] : [],
      releases: renamed ? [{ scope: TARGET_NAME_SCOPE, value: targetNameKey(current.state.name) }] : [],
      reply,
    };
  },
};

function changedFields(state: Target, c: PatchTarget): { -readonly [K in keyof Target]?: Target[K] } {
  const changes: { -readonly [K in keyof Target]?: Target[K] } = {};
  const name = c.name?.trim();
  if (name !== undefined && name !== state.name) changes.name = name;
  if (c.endpoint !== undefined && c.endpoint.targetType !== state.targetType) changes.targetType = c.endpoint.targetType;
  if (c.endpoint !== undefined && c.endpoint.url !== state.url) changes.url = c.endpoint.url;
  if (c.timeoutNanos !== undefined && c.timeoutNanos !== state.timeoutNanos) changes.timeoutNanos = c.timeoutNanos;
  if (c.executionType !== undefined && c.executionType !== state.executionType) changes.executionType = c.executionType;
  return changes;
}
