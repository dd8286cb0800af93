/**
 * Memberships: a user holding roles in a context (system, instance, organization, project).
 * (context, user) is unique because the aggregate id is derived from both.
 */
import { membershipEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import { invalidArgument } from '../kernel/errors.js';
import { isRoleName, ROLES } from '../kernel/roles.js';

export type MembershipContext = 'system' | 'instance' | 'org' | 'project';

export interface Membership {
  readonly contextType: MembershipContext;
  readonly contextId: string;
  readonly userId: string;
  readonly roles: readonly string[];
}

export function membershipId(contextType: MembershipContext, contextId: string, userId: string): string {
  return `${contextType}:${contextId}:${userId}`;
}

/** The parts of a membership id, or undefined when it is not one. */
export function parseMembershipId(id: string): { contextType: MembershipContext; contextId: string; userId: string } | undefined {
  const parts = id.split(':');
  if (parts.length !== 3) return undefined;
  const [contextType, contextId, userId] = parts as [string, string, string];
  if (!isMembershipContext(contextType) || userId === '' || (contextId === '' && contextType !== 'system')) return undefined;
  return { contextType, contextId, userId };
}

export function isMembershipContext(value: string): value is MembershipContext {
  return value === 'system' || value === 'instance' || value === 'org' || value === 'project';
}

/** Throws `membership.role_invalid` (400, field `roles`) unless every role belongs to the context. */
export function assertRolesFit(context: MembershipContext, roles: readonly string[]): void {
  roles.forEach((role, i) => {
    if (!isRoleName(role) || ROLES[role].context !== context) {
      throw invalidArgument('membership.role_invalid', 'a role is not available in this context', {
        violations: [{ field: `roles[${i}]`, description: 'unknown role for this context' }],
      });
    }
  });
}

export type MembershipAction = 'added' | 'changed' | 'removed';

export function membershipEventType<A extends MembershipAction>(context: MembershipContext, action: A): `${MembershipContext}.member.${A}` {
  return `${context}.member.${action}`;
}

export interface MembershipPayload {
  readonly contextType: MembershipContext;
  readonly contextId: string;
  readonly userId: string;
  /** The whole list after the change; on removal, the roles held. */
  readonly roles: readonly string[];
}

/** `system.member.added`, `org.member.changed`, …: one shape for every context and action. */
export type MembershipEvent = { type: `${MembershipContext}.member.${MembershipAction}`; payload: MembershipPayload };

export const membershipKind: AggregateKind<Membership, MembershipEvent, 'membership'> = {
  type: 'membership',
  table: 'memberships',
  events: membershipEvents,
  evolve(state, e) {
    const payload = e.payload;
    if (e.type.endsWith('.member.removed')) return undefined;
    if (e.type.endsWith('.member.added')) {
      return { contextType: payload.contextType, contextId: payload.contextId, userId: payload.userId, roles: payload.roles };
    }
    if (e.type.endsWith('.member.changed')) return state && { ...state, roles: payload.roles };
    return state;
  },
};
