/**
 * The user agent's login sessions: random tokens in one cookie (several, so the user can pick
 * an account), each mapped by its SHA-256 digest to a row in a TTL table. The cookie is
 * HttpOnly, SameSite=Lax, Path=/ and Secure unless the external URL is plain http (localhost).
 * TODO(issue 4): back these with PlatformSessions (src/api/resources/sessions) once they land.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BrowserSessionSummary, TtlStore } from '../../actors/index.js';

export const BROWSER_SESSION_TABLE = 'browser_sessions';
export const SESSION_COOKIE = 'tessera_sessions';
export const BROWSER_SESSION_LIFETIME_MS = 24 * 3_600_000;
const MAX_SESSIONS_PER_BROWSER = 5;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface BrowserSession extends BrowserSessionSummary {
  readonly orgId: string;
  readonly loginName: string;
  readonly expiresAt: number;
}

/** A session row with the cookie token that found it. */
export interface HeldSession {
  readonly token: string;
  readonly session: BrowserSession;
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** The session tokens in a Cookie header (malformed ones dropped). */
export function parseSessionCookie(cookieHeader: string | undefined): string[] {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === SESSION_COOKIE && value !== undefined) return value.split('.').filter((t) => TOKEN.test(t)).slice(0, MAX_SESSIONS_PER_BROWSER);
  }
  return [];
}

/** The Set-Cookie value holding `tokens` (newest first). */
export function toSessionCookie(tokens: readonly string[], secure: boolean): string {
  const value = tokens.slice(0, MAX_SESSIONS_PER_BROWSER).join('.');
  const attributes = [`Path=/`, `HttpOnly`, `SameSite=Lax`, ...(secure ? ['Secure'] : [])];
  if (value === '') return `${SESSION_COOKIE}=; Max-Age=0; ${attributes.join('; ')}`;
  return `${SESSION_COOKIE}=${value}; Max-Age=${BROWSER_SESSION_LIFETIME_MS / 1000}; ${attributes.join('; ')}`;
}

/** The live sessions the cookie holds, one per user (the newest wins). */
export async function readBrowserSessions(ttl: TtlStore, instanceId: string, cookieHeader: string | undefined): Promise<HeldSession[]> {
  const held: HeldSession[] = [];
  for (const token of parseSessionCookie(cookieHeader)) {
    const session = (await ttl.get(instanceId, BROWSER_SESSION_TABLE, digestOf(token))) as BrowserSession | undefined;
    if (session !== undefined && !held.some((h) => h.session.userId === session.userId)) held.push({ token, session });
  }
  return held;
}

export interface NewBrowserSession {
  readonly userId: string;
  readonly orgId: string;
  readonly loginName: string;
  readonly amr: readonly string[];
  readonly now: number;
}

/** Creates a session; returns it with its token (put first in the cookie). */
export async function createBrowserSession(ttl: TtlStore, instanceId: string, input: NewBrowserSession): Promise<HeldSession> {
  const token = randomBytes(32).toString('base64url');
  const session: BrowserSession = {
    sessionId: randomBytes(16).toString('base64url'),
    userId: input.userId,
    orgId: input.orgId,
    loginName: input.loginName,
    authTime: input.now,
    amr: input.amr,
    expiresAt: input.now + BROWSER_SESSION_LIFETIME_MS,
  };
  await ttl.put(instanceId, BROWSER_SESSION_TABLE, digestOf(token), session, session.expiresAt);
  return { token, session };
}

/** Ends sessions (end_session): their rows go; the caller clears the cookie. */
export async function terminateBrowserSessions(ttl: TtlStore, instanceId: string, tokens: readonly string[]): Promise<void> {
  for (const token of tokens) await ttl.delete(instanceId, BROWSER_SESSION_TABLE, digestOf(token));
}

/** Whether the cookie should carry Secure: always, except for a plain-http external URL. */
export function isSecureCookie(externalSecure: boolean): boolean {
  return externalSecure;
}
