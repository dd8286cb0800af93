/**
 * Creates an IDP at the instance or in an organization (the org must exist). The client
 * secret arrives in plaintext and is sealed here; only the sealed form is recorded.
 */
import { alreadyExists, notFound } from '../../kernel/errors.js';
import { ref, type AggregateRef, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../../organization/org.js';
import { idpEventType, idpKind, type DefiningPolicy, type Idp, type IdpOptions, type IdpType } from '../idp.js';

export interface CreateIdp {
  readonly idpId: string;
  /** The defining organization; undefined: the instance. */
  readonly orgId?: string;
  readonly name: string;
  readonly idpType: IdpType;
  readonly policy: DefiningPolicy;
  readonly options: IdpOptions;
  readonly config: { readonly clientId: string; readonly clientSecret: string; readonly scopes: readonly string[]; readonly issuer: string };
}

/** `idp.create`: records `<instance|org>.idp.<type>.added`. */
export const createIdp: CommandHandler<CreateIdp, ResourceDetails> = {
  load: (c) => {
    const refs: AggregateRef[] = [ref(idpKind, c.idpId)];
    if (c.orgId !== undefined) refs.push(ref(orgKind, c.orgId));
    return refs;
  },
  decide(loaded, c, ctx) {
    if (loaded.get(idpKind, c.idpId).version > 0) throw alreadyExists('idp.exists', 'the identity provider already exists');
    if (c.orgId !== undefined && loaded.get(orgKind, c.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    const owner = c.orgId === undefined ? instanceOwner(ctx.instanceId) : orgOwner(c.orgId);
    const payload: Idp = {
      name: c.name.trim(),
      idpType: c.idpType,
      policy: c.policy,
      options: c.options,
      config: { ...c.config, clientSecret: ctx.sealer.seal(c.config.clientSecret) },
    };
    return {
      events: [{ aggregateType: idpKind.type, aggregateId: c.idpId, type: idpEventType(owner, 'added', c.idpType), owner, creator: ctx.creator, payload }],
      reply: (outcome) => detailsAfter(outcome, { id: c.idpId, record: undefined, owner }),
    };
  },
};
