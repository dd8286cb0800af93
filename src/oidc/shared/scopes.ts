/**
 * Scope handling of the token grants (reference facts §5.1, RFC 6749 §3.3): malformed scope
 * strings → invalid_scope; standard scopes and the `urn:platform:iam:` scopes are accepted;
 * org scopes that do not match the user's organization are dropped; project role scopes need
 * the role in the client's project; unknown scopes are dropped silently. Project audience
 * scopes add the project id to `aud`; the id `platform` names the platform's own management
 * API (resource and settings APIs accept tokens whose audience contains it).
 */
import { OAuthError } from '../../../actors/index.js';

export const PLATFORM_AUDIENCE = 'platform';
export const SCOPE_PREFIX = 'urn:platform:iam:';

const STANDARD = new Set(['openid', 'profile', 'email', 'phone', 'address', 'offline_access']);
const FIXED_CUSTOM = new Set([`${SCOPE_PREFIX}user:metadata`, `${SCOPE_PREFIX}user:resourceowner`, `${SCOPE_PREFIX}org:projects:roles`]);
const ORG_ID = `${SCOPE_PREFIX}org:id:`;
const ORG_DOMAIN = `${SCOPE_PREFIX}org:domain:primary:`;
const PROJECT_ID = `${SCOPE_PREFIX}org:project:id:`;
const PROJECT_ROLE = `${SCOPE_PREFIX}org:project:role:`;
const FREE_PREFIXES = [`${SCOPE_PREFIX}org:idp:id:`, `${SCOPE_PREFIX}org:roles:id:`];
/** RFC 6749 §3.3 scope-token characters. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface ScopeSubject {
  readonly orgId: string;
  readonly orgPrimaryDomain: string;
  /** Role keys of the client's project (none for machine-user clients). */
  readonly projectRoles: readonly string[];
}

export interface GrantedScopes {
  readonly scopes: readonly string[];
  /** Project ids (and `platform`) named by `…:org:project:id:{id}:aud` scopes. */
  readonly projectAudience: readonly string[];
}

/** The scope parameter as a list; a malformed value → invalid_scope. Absent → []. */
export function parseScopeParam(value: string | undefined): string[] {
  if (value === undefined) return [];
  const parts = value.split(' ');
  // The usual value (single spaces, no repeats) is returned as split: no filtered copy, no Set.
  const scopes = parts.includes('') ? parts.filter(isNonEmpty) : parts;
  if (scopes.length > 100 || scopes.some(isMalformedScope)) {
    throw new OAuthError('invalid_scope', 'the scope parameter is malformed', { redirectable: false });
  }
  return hasRepeat(scopes) ? [...new Set(scopes)] : scopes;
}

const isNonEmpty = (scope: string): boolean => scope !== '';
const isMalformedScope = (scope: string): boolean => scope.length > 400 || !SCOPE_TOKEN.test(scope);

/** Whether a scope appears twice (at most 100 scopes: pairwise). */
function hasRepeat(scopes: readonly string[]): boolean {
  for (let i = 1; i < scopes.length; i++) for (let j = 0; j < i; j++) if (scopes[i] === scopes[j]) return true;
  return false;
}

/** The scopes granted for a token grant, and the project audience they add. */
export function grantScopes(requested: readonly string[], subject: ScopeSubject): GrantedScopes {
  // Copies only once a scope is dropped, and a project audience only when there is one: when
  // every scope is accepted (the usual token request) the granted list is the requested one.
  let scopes: string[] | undefined;
  let projectAudience: string[] | undefined;
  for (let i = 0; i < requested.length; i++) {
    const scope = requested[i] as string; // i < length
    if (!isAccepted(scope, subject)) {
      scopes ??= requested.slice(0, i);
      continue;
    }
    scopes?.push(scope);
    const project = projectOfAudienceScope(scope);
    if (project !== undefined && projectAudience?.includes(project) !== true) (projectAudience ??= []).push(project);
  }
  return { scopes: scopes ?? requested, projectAudience: projectAudience ?? NO_AUDIENCE };
}

const NO_AUDIENCE: readonly string[] = Object.freeze([]);

function isAccepted(scope: string, subject: ScopeSubject): boolean {
  if (STANDARD.has(scope) || FIXED_CUSTOM.has(scope)) return true;
  if (!scope.startsWith(SCOPE_PREFIX)) return false;
  if (scope.startsWith(ORG_ID)) return scope.slice(ORG_ID.length) === subject.orgId;
  if (scope.startsWith(ORG_DOMAIN)) return scope.slice(ORG_DOMAIN.length).toLowerCase() === subject.orgPrimaryDomain.toLowerCase();
  if (scope.startsWith(PROJECT_ROLE)) return subject.projectRoles.includes(scope.slice(PROJECT_ROLE.length));
  if (scope.startsWith(PROJECT_ID)) return projectOfAudienceScope(scope) !== undefined || scope.endsWith(':roles');
  return FREE_PREFIXES.some((prefix) => scope.length > prefix.length && scope.startsWith(prefix));
}

/** `urn:platform:iam:org:project:id:{id}:aud` → `{id}`. */
export function projectOfAudienceScope(scope: string): string | undefined {
  if (!scope.startsWith(PROJECT_ID) || !scope.endsWith(':aud')) return undefined;
  const id = scope.slice(PROJECT_ID.length, -4);
  return id !== '' && !id.includes(':') ? id : undefined;
}

/** True when every scope of `requested` is in `granted` (refresh: RFC 6749 §6). */
export function isScopeSubset(requested: readonly string[], granted: readonly string[]): boolean {
  return requested.every((scope) => granted.includes(scope));
}
