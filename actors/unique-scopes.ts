/** How a lost unique claim is reported to the caller, by claim scope. */
import type { UniqueScopeError } from './runtime/actor-system.js';
import { INSTANCE_DOMAIN_SCOPE } from './system/instance.js';
import { ORG_DOMAIN_SCOPE, ORG_NAME_SCOPE } from './organization/org.js';
import { PAT_SCOPE, USERNAME_SCOPE } from './organization/user.js';

export const UNIQUE_SCOPES: Readonly<Record<string, UniqueScopeError>> = {
  [INSTANCE_DOMAIN_SCOPE]: { code: 'instance.domain_taken', message: 'the domain is already used by an instance' },
  [ORG_NAME_SCOPE]: { code: 'org.name_taken', message: 'an organization with this name already exists' },
  [ORG_DOMAIN_SCOPE]: { code: 'org.domain_taken', message: 'the domain is already used by another organization' },
  [USERNAME_SCOPE]: { code: 'user.username_taken', message: 'the username is already taken in this organization' },
  [PAT_SCOPE]: { code: 'token.duplicate', message: 'the token already exists' },
};
