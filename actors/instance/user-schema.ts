/**
 * User schemas of an instance: a JSON Schema document under a type name (unique per
 * instance, case-insensitive), the authenticators users of the type may use, a revision
 * counting schema changes, and a state. No user behaviour is attached yet.
 */
import { userSchemaEvents } from '../events.js';
import type { AggregateKind } from '../kernel/aggregate.js';

/** A JSON object (the schema document as the API received it). */
export type JsonDocument = { readonly [key: string]: unknown };

export type Authenticator =
  | 'username'
  | 'password'
  | 'webauthn'
  | 'totp'
  | 'otp_email'
  | 'otp_sms'
  | 'authentication_key'
  | 'identity_provider';

export interface UserSchema {
  readonly type: string;
  readonly schema: JsonDocument;
  readonly possibleAuthenticators: readonly Authenticator[];
  readonly state: 'active' | 'inactive';
  /** 1 on creation, +1 per schema change. */
  readonly revision: number;
}

export const USER_SCHEMA_TYPE_SCOPE = 'userschema.type';

export function userSchemaTypeKey(type: string): string {
  return type.toLowerCase();
}

export type UserSchemaEvent =
  | { type: 'userschema.added'; payload: { type: string; schema: JsonDocument; possibleAuthenticators: Authenticator[] } }
  | { type: 'userschema.changed'; payload: { type?: string; schema?: JsonDocument; possibleAuthenticators?: Authenticator[] } }
  | { type: 'userschema.deactivated'; payload: Record<string, never> }
  | { type: 'userschema.reactivated'; payload: Record<string, never> }
  | { type: 'userschema.removed'; payload: Record<string, never> };

export const userSchemaKind: AggregateKind<UserSchema, UserSchemaEvent, 'userschema'> = {
  type: 'userschema',
  table: 'user_schemas',
  events: userSchemaEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'userschema.added':
        return { ...e.payload, state: 'active', revision: 1 };
      case 'userschema.changed':
        return state && { ...state, ...e.payload, revision: e.payload.schema === undefined ? state.revision : state.revision + 1 };
      case 'userschema.deactivated':
        return state && { ...state, state: 'inactive' };
      case 'userschema.reactivated':
        return state && { ...state, state: 'active' };
      case 'userschema.removed':
        return undefined;
      default:
        return state;
    }
  },
};
