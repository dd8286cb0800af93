/**
 * Organization-owned resources: which org a create lands in (the ctx org, else the instance
 * default), and reads that treat everything of a removed organization as gone (a removed
 * org tombstones all it owns: its ids answer 404, searches skip them).
 */
import { type AggregateKind, type AggregateRecord, type ErrorCode, failedPrecondition, notFound, orgKind } from '../../../actors/index.js';
import type { CallContext } from '../call-context.js';
import { defaultOrgId } from '../resources/organizations/shared.js';

/** The organization a new org-owned resource belongs to: `ctx.orgId`/`ctx.orgDomain`, else the default org. */
export async function targetOrgId(call: CallContext): Promise<string> {
  if (call.scope.type === 'org') return call.scope.orgId;
  const id = await defaultOrgId(call);
  if (id === '') throw failedPrecondition('org.no_default', 'the instance has no default organization; pass ctx.orgId');
  return id;
}

/** True when the organization exists (is not removed). */
export async function orgExists(call: CallContext, orgId: string): Promise<boolean> {
  return (await call.services.actors.readRecord(call.instance.id, orgKind, orgId)) !== undefined;
}

/** Reads an org-owned row; undefined when absent or when its organization was removed. */
export async function readOwned<S>(call: CallContext, kind: AggregateKind<S>, id: string): Promise<AggregateRecord<S> | undefined> {
  const record = await call.services.actors.readRecord(call.instance.id, kind, id);
  if (record === undefined) return undefined;
  if (record.meta.owner.type === 'org' && !(await orgExists(call, record.meta.owner.id))) return undefined;
  return record;
}

/** Like readOwned, but 404 with the given code when missing. */
export async function requireOwned<S>(call: CallContext, kind: AggregateKind<S>, id: string, code: ErrorCode, what: string): Promise<AggregateRecord<S>> {
  const record = await readOwned(call, kind, id);
  if (record === undefined) throw notFound(code, `${what} not found`);
  return record;
}

/** Whether a caller may read rows of an organization; `everywhere`: of every org that exists. */
export type OrgReadFilter = ((orgId: string) => Promise<boolean>) & { readonly everywhere: boolean };

/**
 * A per-request filter for searches across organizations: keeps rows whose org still exists
 * and in which the caller holds `permission` (instance-wide holders see every org).
 */
export async function createOrgReadFilter(call: CallContext, permission: string): Promise<OrgReadFilter> {
  const everywhere = await call.can(permission);
  const cache = new Map<string, boolean>();
  const filter = async (orgId: string) => {
    let allowed = cache.get(orgId);
    if (allowed === undefined) {
      allowed = (await orgExists(call, orgId)) && (everywhere || (await call.can(permission, orgId)));
      cache.set(orgId, allowed);
    }
    return allowed;
  };
  return Object.assign(filter, { everywhere });
}
