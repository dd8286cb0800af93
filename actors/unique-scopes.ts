/** How a lost unique claim is reported to the caller, by claim scope. */
import type { UniqueScopeError } from './runtime/actor-system.js';
import { INSTANCE_DOMAIN_SCOPE } from './system/instance.js';
import { ORG_DOMAIN_SCOPE, ORG_NAME_SCOPE } from './organization/org.js';
import { PAT_SCOPE, USERNAME_INSTANCE_SCOPE, USERNAME_SCOPE } from './organization/user.js';
import { USER_SCHEMA_TYPE_SCOPE } from './instance/user-schema.js';
import { PROJECT_NAME_SCOPE } from './organization/project.js';
import { APP_CLIENT_ID_SCOPE, APP_NAME_SCOPE } from './organization/application.js';
import { TARGET_NAME_SCOPE } from './instance/target.js';
import { PROJECT_GRANT_SCOPE } from './organization/project-grant.js';
import { USER_GRANT_ID_SCOPE } from './organization/user-grants.js';
import { SESSION_TOKEN_SCOPE } from './organization/session.js';
import { IDP_LINK_SCOPE } from './organization/user-idp-link.js';

export const UNIQUE_SCOPES: Readonly<Record<string, UniqueScopeError>> = {
  [INSTANCE_DOMAIN_SCOPE]: { code: 'instance.domain_taken', message: 'the domain is already used by an instance' },
  [ORG_NAME_SCOPE]: { code: 'org.name_taken', message: 'an organization with this name already exists' },
  [ORG_DOMAIN_SCOPE]: { code: 'org.domain_taken', message: 'the domain is already used by another organization' },
  [USERNAME_SCOPE]: { code: 'user.username_taken', message: 'the username is already taken in this organization' },
  [PAT_SCOPE]: { code: 'token.duplicate', message: 'the token already exists' },
  [USERNAME_INSTANCE_SCOPE]: { code: 'user.username_taken', message: 'the username is already taken in this instance' },
  [USER_SCHEMA_TYPE_SCOPE]: { code: 'userschema.type_taken', message: 'a user schema with this type already exists' },
  [PROJECT_NAME_SCOPE]: { code: 'project.name_taken', message: 'a project with this name already exists in this organization' },
  [APP_NAME_SCOPE]: { code: 'app.name_taken', message: 'an application with this name already exists in this project' },
  [APP_CLIENT_ID_SCOPE]: { code: 'app.client_id_taken', message: 'the client id is already used by another application' },
  [TARGET_NAME_SCOPE]: { code: 'target.name_taken', message: 'a target with this name already exists' },
  [SESSION_TOKEN_SCOPE]: { code: 'session.token_duplicate', message: 'the session token already exists' },
  [PROJECT_GRANT_SCOPE]: { code: 'project_grant.exists', message: 'the project is already granted to this organization' },
  [USER_GRANT_ID_SCOPE]: { code: 'user_grant.exists', message: 'the user grant already exists' },
  [IDP_LINK_SCOPE]: { code: 'user.idp_link_taken', message: 'the external identity is already linked to a user' },
};
