/**
 * Changes an IDP in its defining context; only differing fields are recorded and a patch that
 * changes nothing records nothing. An empty client secret keeps the stored one.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, type ResourceDetails } from '../../kernel/owner.js';
import { idpEventType, idpKind, type DefiningPolicy, type Idp, type IdpConfig, type IdpOptions, type IdpType } from '../idp.js';

export interface PatchIdp {
  readonly idpId: string;
  /** The type the caller addressed (`/idps/forge/{id}`); another type answers 404. */
  readonly idpType: IdpType;
  readonly name?: string;
  readonly policy?: DefiningPolicy;
  readonly options?: IdpOptions;
  /** Plaintext secret ('' or absent: unchanged). */
  readonly config?: { readonly clientId?: string; readonly clientSecret?: string; readonly scopes?: readonly string[]; readonly issuer?: string };
}

/** `idp.patch`: records `<instance|org>.idp.<type>.changed` with the changed fields. */
export const patchIdp: CommandHandler<PatchIdp, ResourceDetails> = {
  load: (c) => [ref(idpKind, c.idpId)],
  decide(loaded, c, ctx) {
    const current = loaded.get(idpKind, c.idpId).record;
    if (current === undefined || current.state.idpType !== c.idpType) throw notFound('idp.not_found', 'identity provider not found');
    const owner = current.meta.owner;
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.idpId, record: current, owner });
    const changes: { -readonly [K in Exclude<keyof Idp, 'idpType'>]?: Idp[K] } = {};
    const name = c.name?.trim();
    if (name !== undefined && name !== current.state.name) changes.name = name;
    if (c.policy !== undefined && c.policy !== current.state.policy) changes.policy = c.policy;
    if (c.options !== undefined && JSON.stringify(c.options) !== JSON.stringify(current.state.options)) changes.options = c.options;
    const config = changedConfig(current.state.config, c.config, (s) => ctx.sealer.seal(s), (s) => ctx.sealer.open(s));
    if (config !== undefined) changes.config = config;
    if (Object.keys(changes).length === 0) return { events: [], reply };
    const type = idpEventType(owner, 'changed', current.state.idpType);
    return { events: [{ aggregateType: idpKind.type, aggregateId: c.idpId, type, owner, creator: ctx.creator, payload: changes }], reply };
  },
};

function changedConfig(
  current: IdpConfig,
  patch: PatchIdp['config'],
  seal: (s: string) => string,
  open: (s: string) => string,
): IdpConfig | undefined {
  if (patch === undefined) return undefined;
  const next: IdpConfig = {
    clientId: patch.clientId ?? current.clientId,
    clientSecret: patch.clientSecret !== undefined && patch.clientSecret !== '' && patch.clientSecret !== open(current.clientSecret) ? seal(patch.clientSecret) : current.clientSecret,
    scopes: patch.scopes !== undefined && patch.scopes.length > 0 ? [...patch.scopes] : current.scopes,
    issuer: patch.issuer ?? current.issuer,
  };
  return JSON.stringify(next) === JSON.stringify(current) ? undefined : next;
}
