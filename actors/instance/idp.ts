/**
 * The identity provider aggregate (seed 000 "Identity provider (IDP)", reference facts §4):
 * a reusable resource defined at the instance (visible in every organization) or in one
 * organization. The owner is the defining context; there its policy is `activate` or
 * `deactivate`. An organization reusing an instance IDP keeps its own policy in an
 * `idp_policy` row (organization/idp-policy.ts). The client secret is stored sealed.
 */
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { Owner, StoredEvent } from '../kernel/ports.js';
import { effectiveState, type EffectiveState, type StatePolicy } from '../machines/state-policy.machine.js';

export type IdpType = 'forge' | 'forge_self_hosted';
export type AutoLinking = 'none' | 'username' | 'email';
/** The policy in the defining context (absent / inherit at creation means activate). */
export type DefiningPolicy = 'activate' | 'deactivate';

export interface IdpOptions {
  readonly isManualLinkingAllowed: boolean;
  readonly isManualCreationAllowed: boolean;
  readonly isAutoCreation: boolean;
  readonly isAutoUpdate: boolean;
  readonly autoLinking: AutoLinking;
}

export interface IdpConfig {
  readonly clientId: string;
  /** Sealed with the master key. */
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  /** The self-hosted forge's base URL; '' for the hosted forge. */
  readonly issuer: string;
}

export interface Idp {
  readonly name: string;
  readonly idpType: IdpType;
  readonly policy: DefiningPolicy;
  readonly options: IdpOptions;
  readonly config: IdpConfig;
}

/** Requested when an IDP names no scopes (reference facts §4.4). */
export const DEFAULT_IDP_SCOPES: readonly string[] = Object.freeze(['openid', 'profile', 'email']);

/** `instance.idp.forge.added`, `org.idp.forge_self_hosted.changed`, `instance.idp.removed`, ... */
export function idpEventType(owner: Owner, action: 'added' | 'changed' | 'removed', idpType?: IdpType): string {
  const prefix = owner.type === 'org' ? 'org' : 'instance';
  return action === 'removed' ? `${prefix}.idp.removed` : `${prefix}.idp.${idpType ?? 'forge'}.${action}`;
}

const CHANGE = /^(instance|org)\.idp\.(forge|forge_self_hosted)\.(added|changed)$/;
const REMOVED = /^(instance|org)\.idp\.removed$/;

/** IDPs of an instance: stream type `idp`, table `idps`. */
export const idpKind: AggregateKind<Idp> = {
  type: 'idp',
  table: 'idps',
  evolve(state, event: StoredEvent) {
    if (REMOVED.test(event.type)) return undefined;
    const match = CHANGE.exec(event.type);
    if (match === null) return state;
    if (match[3] === 'added') return event.payload as unknown as Idp;
    const changes = event.payload as unknown as Partial<Idp>;
    return state && { ...state, ...changes };
  },
};

/** How an IDP looks from a context: effective state, that context's policy, the parent. */
export interface IdpView {
  readonly state: EffectiveState;
  readonly policy: StatePolicy;
  readonly parent?: { readonly owner: Owner; readonly state: EffectiveState };
}

/**
 * The view from the instance (`contextOrgId` undefined) or an organization. The defining
 * context sees its own policy; an organization reusing an instance IDP sees its policy
 * (`inherit` when never set) and the instance as parent (reference facts §4.2).
 */
export function viewIdp(record: AggregateRecord<Idp>, contextOrgId: string | undefined, orgPolicy: StatePolicy | undefined): IdpView {
  const defining = effectiveState(record.state.policy, undefined);
  if (contextOrgId === undefined || record.meta.owner.type === 'org') return { state: defining, policy: record.state.policy };
  const policy = orgPolicy ?? 'inherit';
  return { state: effectiveState(policy, defining), policy, parent: { owner: record.meta.owner, state: defining } };
}
