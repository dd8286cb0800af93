/**
 * Pending authorization requests (OIDC Core §3.1.2): the validated parameters, the CSRF token
 * of the login forms, and the persisted auth-request machine snapshot with its schema version,
 * in a TTL table keyed by an unguessable id. They live 10 minutes.
 */
import { randomBytes } from 'node:crypto';
import {
  AUTH_REQUEST_SNAPSHOT_VERSION,
  authRequestMachine,
  ProgrammerError,
  type AuthPrompt,
  type AuthRequestContext,
  type TtlStore,
} from '../../../actors/index.js';

export const AUTH_REQUEST_TABLE = 'auth_requests';
export const AUTH_REQUEST_LIFETIME_MS = 10 * 60_000;

export type ResponseType = 'code' | 'id_token' | 'id_token token';
export type ResponseMode = 'query' | 'fragment' | 'form_post';

/** The validated authorization request (wire names converted once, here). */
export interface AuthorizeRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly responseType: ResponseType;
  readonly responseMode: ResponseMode;
  readonly scopes: readonly string[];
  readonly state?: string;
  readonly nonce?: string;
  readonly codeChallenge?: string;
  readonly prompt: readonly AuthPrompt[];
  readonly maxAge?: number;
  readonly loginHint?: string;
  readonly hintUserId?: string;
  readonly uiLocales: readonly string[];
}

/** The persisted machine: `getPersistedSnapshot()` output reduced to what `resolveState` needs. */
export interface PersistedAuthMachine {
  readonly version: number;
  readonly value: string;
  readonly context: AuthRequestContext;
}

export interface StoredAuthRequest {
  readonly id: string;
  /** The issuer the request came in under (tokens issued at the end carry it). */
  readonly issuer: string;
  readonly request: AuthorizeRequest;
  /** Synchronizer token of the login forms (compared in constant time). */
  readonly csrf: string;
  readonly machine: PersistedAuthMachine;
  readonly createdAt: number;
}

export type AuthMachineSnapshot = ReturnType<typeof authRequestMachine.resolveState>;

export function createAuthRequestId(): string {
  return randomBytes(24).toString('base64url');
}

export function createCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The persisted form of a machine snapshot. */
export function toPersistedMachine(snapshot: AuthMachineSnapshot): PersistedAuthMachine {
  const persisted: unknown = authRequestMachine.getPersistedSnapshot(snapshot);
  if (!isPersistedMachineSnapshot(persisted)) throw new ProgrammerError('the auth request machine has a string state value and a context');
  return { version: AUTH_REQUEST_SNAPSHOT_VERSION, value: persisted.value, context: persisted.context as AuthRequestContext };
}

/** The machine snapshot of a stored request (for `transition()`). */
export function toMachineSnapshot(machine: PersistedAuthMachine): AuthMachineSnapshot {
  return authRequestMachine.resolveState({ value: machine.value, context: machine.context });
}

export async function saveAuthRequest(ttl: TtlStore, instanceId: string, stored: StoredAuthRequest): Promise<void> {
  await ttl.put(instanceId, AUTH_REQUEST_TABLE, stored.id, stored, stored.createdAt + AUTH_REQUEST_LIFETIME_MS);
}

/** The stored request, or undefined when unknown, expired or of another snapshot version. */
export async function loadAuthRequest(ttl: TtlStore, instanceId: string, id: string): Promise<StoredAuthRequest | undefined> {
  if (!/^[A-Za-z0-9_-]{32}$/.test(id)) return undefined;
  const row = (await ttl.get(instanceId, AUTH_REQUEST_TABLE, id)) as StoredAuthRequest | undefined;
  if (row === undefined || row.machine.version !== AUTH_REQUEST_SNAPSHOT_VERSION) return undefined;
  return row;
}

export async function deleteAuthRequest(ttl: TtlStore, instanceId: string, id: string): Promise<void> {
  await ttl.delete(instanceId, AUTH_REQUEST_TABLE, id);
}

function isPersistedMachineSnapshot(value: unknown): value is { value: string; context: unknown } {
  return typeof value === 'object' && value !== null && 'value' in value && typeof value.value === 'string' && 'context' in value;
}
