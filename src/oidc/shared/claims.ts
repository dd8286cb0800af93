/**
 * Claims of a user per granted scope (OIDC Core §5.4, reference facts §5.1) for userinfo,
 * introspection and ID tokens: profile / email / phone for humans, name / preferred_username
 * for machine users, user metadata (values base64url), org id / primary domain and the
 * resource-owner claims. Role claims come from role-claims.ts.
 */
import type { AggregateRecord, Org, User } from '../../../actors/index.js';
import { loginNamesOf } from '../../query/user-auth.js';
import { SCOPE_PREFIX } from './scopes.js';

export type Claims = Record<string, unknown>;

const ORG_ID = `${SCOPE_PREFIX}org:id:`;
const ORG_DOMAIN = `${SCOPE_PREFIX}org:domain:primary:`;

export interface ClaimSubject {
  readonly user: AggregateRecord<User>;
  /** The user's organization (undefined when it was removed). */
  readonly org: AggregateRecord<Org> | undefined;
}

/** `<username>@<org primary domain>`. */
export function preferredUsername(subject: ClaimSubject): string {
  return loginNamesOf(subject.user.state.username, subject.org?.state).preferredLoginName;
}

/** The claims the scopes grant (always including `sub`). */
export function userClaims(subject: ClaimSubject, scopes: readonly string[]): Claims {
  const claims: Claims = { sub: subject.user.id };
  const has = (scope: string) => scopes.includes(scope);
  if (has('profile')) Object.assign(claims, profileClaims(subject));
  const state = subject.user.state;
  if (state.type === 'human') {
    if (has('email') && state.email.address !== '') Object.assign(claims, { email: state.email.address, email_verified: state.email.verified });
    if (has('phone') && state.phone.number !== '') Object.assign(claims, { phone_number: state.phone.number, phone_number_verified: state.phone.verified });
  }
  return Object.assign(claims, scopeClaims(subject, scopes));
}

/**
 * The private claims of the `urn:platform:iam:` scopes (user metadata, org id / primary domain,
 * resource owner). Unlike profile / email / phone they also go into ID tokens issued together
 * with an access token (reference facts §5.1).
 */
export function scopeClaims(subject: ClaimSubject, scopes: readonly string[]): Claims {
  const claims: Claims = {};
  const has = (scope: string) => scopes.includes(scope);
  const state = subject.user.state;
  if (has(`${SCOPE_PREFIX}user:metadata`) && state.metadata.length > 0) {
    claims[`${SCOPE_PREFIX}user:metadata`] = Object.fromEntries(state.metadata.map((m) => [m.key, Buffer.from(m.value, 'base64').toString('base64url')]));
  }
  const orgScope = scopes.find((s) => s.startsWith(ORG_ID));
  if (orgScope !== undefined) claims[`${SCOPE_PREFIX}org:id`] = orgScope.slice(ORG_ID.length);
  const domainScope = scopes.find((s) => s.startsWith(ORG_DOMAIN));
  if (domainScope !== undefined) claims[`${SCOPE_PREFIX}org:domain:primary`] = domainScope.slice(ORG_DOMAIN.length);
  if ((orgScope !== undefined || has(`${SCOPE_PREFIX}user:resourceowner`)) && subject.org !== undefined) {
    claims[`${SCOPE_PREFIX}user:resourceowner:id`] = subject.org.id;
    claims[`${SCOPE_PREFIX}user:resourceowner:name`] = subject.org.state.name;
    claims[`${SCOPE_PREFIX}user:resourceowner:primary_domain`] = subject.org.state.primaryDomain;
  }
  return claims;
}

function profileClaims(subject: ClaimSubject): Claims {
  const state = subject.user.state;
  const updatedAt = Math.floor(subject.user.meta.changedAt / 1000);
  const preferred = preferredUsername(subject);
  if (state.type === 'machine') return { name: state.name, updated_at: updatedAt, preferred_username: preferred };
  const p = state.profile;
  const claims: Claims = {
    name: p.displayName || `${p.givenName} ${p.familyName}`.trim(),
    given_name: p.givenName,
    family_name: p.familyName,
  };
  if (p.nickname !== '') claims.nickname = p.nickname;
  if (p.gender !== 'unspecified') claims.gender = p.gender;
  if (p.preferredLanguage !== '') claims.locale = p.preferredLanguage;
  claims.updated_at = updatedAt;
  claims.preferred_username = preferred;
  return claims;
}
