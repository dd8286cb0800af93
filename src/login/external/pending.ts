/**
 * Server-side state of external logins (TTL store, no events — protocol state like codes):
 *
 * - a **pending** login, keyed by the `state` sent to the IDP: the auth request, the IDP, the
 *   nonce, the PKCE verifier and the digest of a browser-binding cookie. The callback `take`s
 *   it (single use); the browser carries only `state` and the cookie.
 * - an **identified** external user waiting for the user's choice (link / create prompt),
 *   keyed by the auth request id: which IDP, who the provider said the user is.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TtlStore } from '../../../actors/index.js';
import { clearCookie, readCookie, setCookie } from '../../http/cookies.js';
import type { ExternalUser } from './provider.js';

const PENDING_TABLE = 'external_logins';
const IDENTIFIED_TABLE = 'external_identities';
/** Time to log in at the provider. */
export const PENDING_LIFETIME_MS = 10 * 60_000;
/** Time to answer the link / create prompt. */
const IDENTIFIED_LIFETIME_MS = 10 * 60_000;

/** Cookie binding the callback to the browser that started the login (RFC 6749 §10.12). */
export const BINDING_COOKIE = 'tessera_external';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface PendingExternalLogin {
  readonly authRequestId: string;
  readonly idpId: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  /** SHA-256 of the binding cookie value. */
  readonly bindingDigest: string;
}

export interface IdentifiedExternalUser {
  readonly idpId: string;
  readonly user: ExternalUser;
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function digestOf(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function savePending(ttl: TtlStore, instanceId: string, state: string, pending: PendingExternalLogin, now: number): Promise<void> {
  return ttl.put(instanceId, PENDING_TABLE, state, pending, now + PENDING_LIFETIME_MS);
}

/** Takes the pending login of `state` (at most once) if the browser holds its binding cookie. */
export async function takePending(ttl: TtlStore, instanceId: string, state: string, cookieHeader: string | undefined): Promise<PendingExternalLogin | undefined> {
  if (state === '' || state.length > 200) return undefined;
  const pending = (await ttl.take(instanceId, PENDING_TABLE, state)) as PendingExternalLogin | undefined;
  const binding = bindingCookieOf(cookieHeader);
  if (pending === undefined || binding === undefined) return undefined;
  const expected = Buffer.from(pending.bindingDigest);
  const actual = Buffer.from(digestOf(binding));
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? pending : undefined;
}

export function bindingCookie(value: string, secure: boolean): string {
  return setCookie(BINDING_COOKIE, value, PENDING_LIFETIME_MS / 1000, { path: '/', secure });
}

/** The Set-Cookie value removing the binding cookie (the callback took the pending login). */
export function clearedBindingCookie(secure: boolean): string {
  return clearCookie(BINDING_COOKIE, { path: '/', secure });
}

function bindingCookieOf(cookieHeader: string | undefined): string | undefined {
  const value = readCookie(cookieHeader, BINDING_COOKIE);
  return value !== undefined && TOKEN.test(value) ? value : undefined;
}

export function saveIdentified(ttl: TtlStore, instanceId: string, authRequestId: string, identified: IdentifiedExternalUser, now: number): Promise<void> {
  return ttl.put(instanceId, IDENTIFIED_TABLE, authRequestId, identified, now + IDENTIFIED_LIFETIME_MS);
}

export async function readIdentified(ttl: TtlStore, instanceId: string, authRequestId: string): Promise<IdentifiedExternalUser | undefined> {
  return (await ttl.get(instanceId, IDENTIFIED_TABLE, authRequestId)) as IdentifiedExternalUser | undefined;
}

export function dropIdentified(ttl: TtlStore, instanceId: string, authRequestId: string): Promise<void> {
  return ttl.delete(instanceId, IDENTIFIED_TABLE, authRequestId);
}
