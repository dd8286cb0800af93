/**
 * Memberships: a user holding roles in a context (system, instance, organization, project).
 * (context, user) is unique because the aggregate id is derived from both.
 */
import type { AggregateKind } from '../kernel/aggregate.js';
import type { StoredEvent } from '../kernel/ports.js';

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
