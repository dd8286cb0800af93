/**
 * Users. This first slice holds machine (service) users and their personal access tokens;
 * the identity-core work adds human users. A PAT is stored only as its SHA-256 digest,
 * claimed under `user.pat` so a bearer token finds its user in one lookup.
 */
import type { AggregateKind } from '../kernel/aggregate.js';
import type { StoredEvent } from '../kernel/ports.js';

export interface PersonalAccessToken {
  readonly id: string;
  readonly digest: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

export interface User {
  readonly orgId: string;
  readonly type: 'machine';
  readonly username: string;
  readonly name: string;
  readonly description: string;
  readonly accessTokenType: 'bearer' | 'jwt';
  readonly state: 'active' | 'inactive' | 'locked';
  readonly tokens: readonly PersonalAccessToken[];
}

export const USERNAME_SCOPE = 'user.username';
export const PAT_SCOPE = 'user.pat';

export function usernameKey(orgId: string, username: string): string {
  return `${orgId}:${username.toLowerCase()}`;
}

export type UserEvent =
  | {
      type: 'user.machine.added';
      payload: { orgId: string; username: string; name: string; description: string; accessTokenType: 'bearer' | 'jwt' };
    }
  | { type: 'user.token.added'; payload: PersonalAccessToken }
  | { type: 'user.token.removed'; payload: { id: string } }
  | { type: 'user.removed'; payload: Record<string, never> };

export const userKind: AggregateKind<User> = {
  type: 'user',
  table: 'users',
  evolve(state, event: StoredEvent) {
    const e = event as unknown as UserEvent;
    switch (e.type) {
      case 'user.machine.added':
        return { ...e.payload, type: 'machine', state: 'active', tokens: [] };
      case 'user.token.added':
        return state && { ...state, tokens: [...state.tokens, e.payload] };
      case 'user.token.removed':
        return state && { ...state, tokens: state.tokens.filter((t) => t.id !== e.payload.id) };
      case 'user.removed':
        return undefined;
      default:
        return state;
    }
  },
};
