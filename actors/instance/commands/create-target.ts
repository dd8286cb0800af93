/**
 * Creates a target. The edge generates the signing key; it is sealed here with the master key
 * and only ever stored sealed. Target names are unique per instance (case-insensitive).
 */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import { TARGET_NAME_SCOPE, targetKind, targetNameKey, type TargetExecutionType, type TargetType } from '../target.js';

export interface CreateTarget {
  readonly targetId: string;
  readonly name: string;
  readonly targetType: TargetType;
  readonly url: string;
  readonly timeoutNanos: number;
  readonly executionType: TargetExecutionType;
  /** Plaintext; sealed before it is recorded. */
  readonly signingKey: string;
}

/** `target.create`: records `action.target.added`. */
export const createTarget: CommandHandler<CreateTarget, ResourceDetails> = {
  load: (c) => [ref(targetKind, c.targetId)],
  decide(loaded, c, ctx) {
    if (loaded.get(targetKind, c.targetId).version > 0) throw alreadyExists('target.exists', 'the target already exists');
    const owner = instanceOwner(ctx.instanceId);
    const { targetId, signingKey, ...fields } = c;
    const payload = { ...fields, name: c.name.trim(), signingKey: ctx.sealer.seal(signingKey) };
    return {
      events: [{ aggregateType: targetKind.type, aggregateId: targetId, type: 'action.target.added', owner, creator: ctx.creator, payload }],
      claims: [{ scope: TARGET_NAME_SCOPE, value: targetNameKey(payload.name), holder: targetId }],
      reply: (outcome) => detailsAfter(outcome, { id: targetId, record: undefined, owner }),
    };
  },
};
