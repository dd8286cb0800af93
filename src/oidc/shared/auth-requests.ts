/**
 * Pending authorization requests (OIDC Core §3.1.2): the validated parameters, the CSRF token
 * of the login forms, the digest of the browser binding, and the persisted auth-request machine
 * snapshot with its schema version, in a TTL table keyed by an unguessable id. They live 10
 * minutes.
 *
 * Browser binding (login CSRF, session fixation): the authorization endpoint gives the browser
 * a random value in a cookie named after the auth request (HttpOnly, SameSite=Lax, Path=/ui/login,
 * Secure on https, as long-lived as the request) and stores only its SHA-256 digest here. Every
 * login step compares the cookie's digest with the stored one; a request id and CSRF token
 * seen elsewhere are useless without it. One cookie per request, so logins in several tabs do
 * not overwrite each other's binding.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readCookie, setCookie } from '../../http/cookies.js';
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
  /** SHA-256 (base64url) of the browser-binding cookie's value (see the module comment). */
  readonly bindingDigest: string;
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

/** Path of the binding cookie: the login UI (steps and external IdP callbacks), nothing else. */
export const BINDING_COOKIE_PATH = '/ui/login';
const BINDING_COOKIE_PREFIX = 'tessera_login_';
const BINDING_VALUE = /^[A-Za-z0-9_-]{43}$/;

/** A fresh browser binding: the cookie value and the digest stored with the auth request. */
export function createBrowserBinding(): { readonly value: string; readonly digest: string } {
  const value = randomBytes(32).toString('base64url');
  return { value, digest: bindingDigestOf(value) };
}

function bindingDigestOf(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** The Set-Cookie value binding auth request `id` to this browser. */
export function browserBindingCookie(id: string, value: string, secure: boolean): string {
  return setCookie(`${BINDING_COOKIE_PREFIX}${id}`, value, AUTH_REQUEST_LIFETIME_MS / 1000, { path: BINDING_COOKIE_PATH, secure });
}

/** Whether the Cookie header holds the binding of `stored` (compared in constant time). */
export function isBoundToBrowser(stored: StoredAuthRequest, cookieHeader: string | undefined): boolean {
  const name = `${BINDING_COOKIE_PREFIX}${stored.id}`;
  if (typeof stored.bindingDigest !== 'string') return false;
  const value = readCookie(cookieHeader, name);
  if (value === undefined || !BINDING_VALUE.test(value)) return false;
  const expected = Buffer.from(stored.bindingDigest);
  const actual = Buffer.from(bindingDigestOf(value));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
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

/**
 * Takes the request out of the table atomically (both stores' `take`): of several concurrent
 * steps that settle the same request, exactly one gets true, so one request yields at most one
 * code or answer.
 */
export async function takeAuthRequest(ttl: TtlStore, instanceId: string, id: string): Promise<boolean> {
  return (await ttl.take(instanceId, AUTH_REQUEST_TABLE, id)) !== undefined;
}

function isPersistedMachineSnapshot(value: unknown): value is { value: string; context: unknown } {
  return typeof value === 'object' && value !== null && 'value' in value && typeof value.value === 'string' && 'context' in value;
}
