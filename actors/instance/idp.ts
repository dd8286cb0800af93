/**
 * The identity provider aggregate (seed 000 "Identity provider (IDP)", reference facts §4):
 * a reusable resource defined at the instance (visible in every organization) or in one
 * organization. The owner is the defining context; there its policy is `activate` or
 * `deactivate`. An organization reusing an instance IDP keeps its own policy in an
 * `idp_policy` row (organization/idp-policy.ts). The client secret is stored sealed.
 */
import { idpEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { Owner } from '../kernel/ports.js';
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

/** Where an IDP is defined: the prefix of its event types. */
export type IdpScope = 'instance' | 'org';

export type IdpEvent =
  | { type: `${IdpScope}.idp.${IdpType}.added`; payload: Idp }
  /** The type is part of the event name and never changes. */
  | { type: `${IdpScope}.idp.${IdpType}.changed`; payload: Partial<Omit<Idp, 'idpType'>> }
  | { type: `${IdpScope}.idp.removed`; payload: Record<string, never> };

function idpScope(owner: Owner): IdpScope {
  return owner.type === 'org' ? 'org' : 'instance';
}

/** `instance.idp.forge.added`, `org.idp.forge_self_hosted.changed`, … */
export function idpEventType<A extends 'added' | 'changed'>(owner: Owner, action: A, idpType: IdpType): `${IdpScope}.idp.${IdpType}.${A}` {
  return `${idpScope(owner)}.idp.${idpType}.${action}`;
}

/** `instance.idp.removed` or `org.idp.removed`. */
export function idpRemovedEventType(owner: Owner): `${IdpScope}.idp.removed` {
  return `${idpScope(owner)}.idp.removed`;
}

/** IDPs of an instance: stream type `idp`, table `idps`. */
export const idpKind: AggregateKind<Idp, IdpEvent, 'idp'> = {
  type: 'idp',
  table: 'idps',
  events: idpEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'instance.idp.removed':
      case 'org.idp.removed':
        return undefined;
      case 'instance.idp.forge.added':
      case 'instance.idp.forge_self_hosted.added':
      case 'org.idp.forge.added':
      case 'org.idp.forge_self_hosted.added':
        return e.payload;
      default:
        return state && { ...state, ...e.payload };
    }
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
