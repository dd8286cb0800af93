/** Removes an IDP (any type) in its defining context. Organizations' policy rows stay orphaned and are ignored. */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, type ResourceDetails } from '../../kernel/owner.js';
import { idpKind, idpRemovedEventType } from '../idp.js';

export interface RemoveIdp {
  readonly idpId: string;
}

/** `idp.remove`: records `<instance|org>.idp.removed`. */
export const removeIdp: CommandHandler<RemoveIdp, ResourceDetails> = {
  load: (c) => [ref(idpKind, c.idpId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(idpKind, c.idpId).record;
    if (current === undefined) throw notFound('idp.not_found', 'identity provider not found');
    const owner = current.meta.owner;
    return {
      events: [{ aggregateType: idpKind.type, aggregateId: c.idpId, type: idpRemovedEventType(owner), owner, creator: ctx.creator, payload: {} }],
      reply: (outcome) => detailsAfter(outcome, { id: c.idpId, record: current, owner }),
    };
  },
};
