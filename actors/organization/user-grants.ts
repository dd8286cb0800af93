/**
 * User grants: a user holds roles of a project. All grants of one user are one aggregate
 * (stream `user.grants:<userId>`, one row per user), so a user's roles are one read and
 * "one grant per (user, project)" is an invariant of the aggregate. A grant's id is claimed
 * under `user.grant.id` (value: grant id, holder: user id) so a grant is found by id. Owned
 * by the user's organization. Role keys the project (or the project grant) no longer has are
 * filtered out when read, not rewritten.
 */
import { userGrantEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';
import type { GrantState } from './project-grant.js';

export interface UserGrant {
  readonly id: string;
  readonly projectId: string;
  /** '' when the user's organization owns the project. */
  readonly projectGrantId: string;
  readonly roleKeys: readonly string[];
  readonly state: GrantState;
  /** Epoch milliseconds / position of the events that added and last changed the grant. */
  readonly createdAt: number;
  readonly changedAt: number;
  readonly sequence: number;
}

export interface UserGrants {
  readonly userId: string;
  readonly orgId: string;
  readonly grants: readonly UserGrant[];
}

export const USER_GRANT_ID_SCOPE = 'user.grant.id';

/** Grants one user may hold (bounds the row every grant change rewrites). */
export const MAX_USER_GRANTS = 1000;

type AddedPayload = { grantId: string; userId: string; projectId: string; projectGrantId: string; roleKeys: string[] };

export type UserGrantEvent =
  | { type: 'user.grant.added'; payload: AddedPayload }
  | { type: 'user.grant.changed'; payload: { grantId: string; roleKeys: string[] } }
  | { type: 'user.grant.deactivated'; payload: { grantId: string } }
  | { type: 'user.grant.reactivated'; payload: { grantId: string } }
  | { type: 'user.grant.removed'; payload: { grantId: string } };

export const userGrantsKind: AggregateKind<UserGrants, UserGrantEvent, 'user.grants'> = {
  type: 'user.grants',
  table: 'user_grants',
  events: userGrantEvents,
  evolve(state, e) {
    const stamp = { changedAt: e.createdAt, sequence: e.position };
    switch (e.type) {
      case 'user.grant.added': {
        const { grantId, userId, ...rest } = e.payload;
        const base = state ?? { userId, orgId: e.owner.id, grants: [] };
        const grant: UserGrant = { id: grantId, ...rest, state: 'active', createdAt: e.createdAt, ...stamp };
        return { ...base, orgId: e.owner.id, grants: [...base.grants, grant] };
      }
      case 'user.grant.changed':
        return state && update(state, e.payload.grantId, (g) => ({ ...g, roleKeys: e.payload.roleKeys, ...stamp }));
      case 'user.grant.deactivated':
        return state && update(state, e.payload.grantId, (g) => ({ ...g, state: 'inactive', ...stamp }));
      case 'user.grant.reactivated':
        return state && update(state, e.payload.grantId, (g) => ({ ...g, state: 'active', ...stamp }));
      case 'user.grant.removed':
        return state && { ...state, grants: state.grants.filter((g) => g.id !== e.payload.grantId) };
      default:
        return state;
    }
  },
};

function update(state: UserGrants, grantId: string, change: (g: UserGrant) => UserGrant): UserGrants {
  return { ...state, grants: state.grants.map((g) => (g.id === grantId ? change(g) : g)) };
}
