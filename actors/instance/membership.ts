/**
 * Memberships: a user holding roles in a context (system, instance, organization, project).
 * (context, user) is unique because the aggregate id is derived from both.
 */
import type { AggregateKind } from '../kernel/aggregate.js';
import { invalidArgument } from '../kernel/errors.js';
import type { StoredEvent } from '../kernel/ports.js';
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

const eventPrefix: Record<MembershipContext, string> = {
  system: 'system.member',
  instance: 'instance.member',
  org: 'org.member',
  project: 'project.member',
};

export function membershipEventType(context: MembershipContext, action: 'added' | 'changed' | 'removed'): string {
  return `${eventPrefix[context]}.${action}`;
}

interface MembershipPayload {
  contextType: MembershipContext;
  contextId: string;
  userId: string;
  roles: string[];
}

export const membershipKind: AggregateKind<Membership> = {
  type: 'membership',
  table: 'memberships',
  evolve(state, event: StoredEvent) {
    const payload = event.payload as MembershipPayload;
    if (event.type.endsWith('.member.removed')) return undefined;
    if (event.type.endsWith('.member.added')) {
      return { contextType: payload.contextType, contextId: payload.contextId, userId: payload.userId, roles: payload.roles };
    }
    if (event.type.endsWith('.member.changed')) return state && { ...state, roles: payload.roles };
    return state;
  },
};
