/**
 * Membership lookups, permissions and read shapes shared by the PlatformMemberships operations.
 * Permissions follow the context: `iam.member.*` (instance), `org.member.*` in the organization,
 * `project.member.*` in the project (or its organization).
 */
import { create } from '@bufbuild/protobuf';
import {
  type AggregateRecord,
  detailsOf,
  INSTANCE_OWNER_ROLE,
  type Membership,
  type MembershipContext,
  membershipKind,
  notFound,
  type OwnerCandidate,
  parseMembershipId,
  userKind,
} from '../../../../actors/index.js';
import {
  GetMembershipSchema,
  MembershipContextType,
  type GetMembership,
} from '../../../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { isMembershipLive } from '../../../query/auth.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';

export type MemberAction = 'read' | 'write' | 'delete';

export const contextTypes: Record<MembershipContext, MembershipContextType> = {
  system: MembershipContextType.SYSTEM,
  instance: MembershipContextType.INSTANCE,
  org: MembershipContextType.ORG,
  project: MembershipContextType.PROJECT,
};

export function parseContextType(wire: MembershipContextType): MembershipContext | undefined {
  return (Object.keys(contextTypes) as MembershipContext[]).find((k) => contextTypes[k] === wire);
}

/** The permission a membership operation needs in a context. */
export function memberPermission(context: MembershipContext, action: MemberAction): string {
  const prefix = { system: 'system.iam.member', instance: 'iam.member', org: 'org.member', project: 'project.member' }[context];
  return `${prefix}.${action}`;
}

/** Where a membership lives: its context, and the organization owning it ('' for the instance). */
export interface MembershipPlace {
  readonly contextType: MembershipContext;
  readonly contextId: string;
  readonly orgId: string;
}

/** The permission check of `action` on memberships of that place: (permission, orgId, projectId). */
function checkOf(place: MembershipPlace, action: MemberAction): [string, string?, string?] {
  const permission = memberPermission(place.contextType, action);
  if (place.contextType === 'org') return [permission, place.contextId];
  if (place.contextType === 'project') return [permission, place.orgId, place.contextId];
  return [permission];
}

/** True when the caller may perform `action` on memberships of that place. */
export function canManage(call: CallContext, place: MembershipPlace, action: MemberAction): Promise<boolean> {
  return call.can(...checkOf(place, action));
}

/** Throws 403 unless canManage. */
export function requireManage(call: CallContext, place: MembershipPlace, action: MemberAction): Promise<void> {
  return call.require(...checkOf(place, action));
}

export function placeOf(record: AggregateRecord<Membership>): MembershipPlace {
  const owner = record.meta.owner;
  return { contextType: record.state.contextType, contextId: record.state.contextId, orgId: owner.type === 'org' ? owner.id : '' };
}

/**
 * A live membership the caller may act on: 404 `membership.not_found` when absent, tombstoned
 * (user or organization gone) or outside the ctx organization; 403 without the permission.
 * Instance and organization memberships are authorized from the id, before the read.
 */
export async function requireMembership(call: CallContext, id: string, action: MemberAction): Promise<AggregateRecord<Membership>> {
  const parsed = parseMembershipId(id);
  const missing = () => notFound('membership.not_found', 'membership not found');
  if (parsed === undefined || parsed.contextType === 'system') throw missing();
  if (parsed.contextType === 'instance' && parsed.contextId !== call.instance.id) throw missing();
  if (parsed.contextType !== 'project') await requireManage(call, { ...parsed, orgId: parsed.contextType === 'org' ? parsed.contextId : '' }, action);
  const record = await call.services.actors.readRecord(call.instance.id, membershipKind, id);
  if (record === undefined || !(await isMembershipLive(call.services.actors, call.instance.id, record))) throw missing();
  const place = placeOf(record);
  if (call.scope.type === 'org' && place.orgId !== call.scope.orgId) throw missing();
  if (parsed.contextType === 'project') await requireManage(call, place, action);
  return record;
}

/**
 * Other instance owners (IAM_OWNER memberships of live users), for commands that could take
 * the last owner away; the command re-checks them against its own reads.
 */
export async function findOtherOwners(call: CallContext, exceptUserId: string, limit = 5): Promise<OwnerCandidate[]> {
  const found: OwnerCandidate[] = [];
  const { actors } = call.services;
  for await (const row of actors.scanRecords(call.instance.id, membershipKind)) {
    const m = row.state;
    if (m.contextType !== 'instance' || m.contextId !== call.instance.id || m.userId === exceptUserId || !m.roles.includes(INSTANCE_OWNER_ROLE)) continue;
    if (!(await isMembershipLive(actors, call.instance.id, row))) continue;
    const user = await actors.readRecord(call.instance.id, userKind, m.userId);
    if (user !== undefined) found.push({ userId: m.userId, orgId: user.state.orgId });
    if (found.length >= limit) break;
  }
  return found;
}

/** True when taking `next` roles (undefined: removal) would drop IAM_OWNER from an instance membership. */
export function dropsInstanceOwner(membership: Membership, next: readonly string[] | undefined): boolean {
  return membership.contextType === 'instance' && membership.roles.includes(INSTANCE_OWNER_ROLE) && next?.includes(INSTANCE_OWNER_ROLE) !== true;
}

export function toGetMembership(record: AggregateRecord<Membership>): GetMembership {
  const creationDate = toTimestamp(record.meta.createdAt);
  return create(GetMembershipSchema, {
    details: toDetails(detailsOf(record)),
    contextType: contextTypes[record.state.contextType],
    contextId: record.state.contextId,
    userId: record.state.userId,
    roles: [...record.state.roles],
    ...(creationDate === undefined ? {} : { creationDate }),
  });
}
