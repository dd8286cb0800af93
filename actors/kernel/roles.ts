/**
 * Default roles and the permissions they grant (docs/permissions.md). Names follow the
 * reference configuration, with the seed's own permission names added where the seed
 * differs (`execution.read`, `action.execution.delete`, `idp.*`).
 */

const rwd = (prefix: string): string[] => [`${prefix}.read`, `${prefix}.write`, `${prefix}.delete`];

const orgAdministration = [
  'org.read', 'org.global.read', 'org.write', 'org.delete',
  ...rwd('org.member'), ...rwd('org.idp'), ...rwd('org.action'), ...rwd('org.flow'), ...rwd('org.feature'),
];

const userAdministration = [
  'user.read', 'user.global.read', 'user.write', 'user.delete', ...rwd('user.grant'),
  'user.membership.read', 'user.credential.write', 'user.passkey.write', ...rwd('user.feature'),
];

const projectAdministration = [
  'project.read', 'project.create', 'project.write', 'project.delete',
  ...rwd('project.member'), ...rwd('project.role'), ...rwd('project.app'), ...rwd('project.grant'),
  ...rwd('project.grant.member'),
];

const iamOwner = [
  'iam.read', 'iam.write',
  ...rwd('iam.policy'), ...rwd('iam.member'), ...rwd('iam.idp'), ...rwd('iam.action'), ...rwd('iam.flow'),
  ...rwd('iam.feature'), 'iam.restrictions.read', 'iam.restrictions.write', ...rwd('iam.web_key'),
  'iam.debug.read', 'iam.debug.write',
  'org.create', ...orgAdministration, ...userAdministration, ...rwd('policy'), ...projectAdministration,
  'events.read', 'milestones.read', 'session.read', 'session.write', 'session.delete',
  'action.target.read', 'action.target.write', 'action.target.delete',
  'action.execution.read', 'action.execution.write', 'action.execution.delete', 'execution.read',
  ...rwd('idp'), ...rwd('userschema'), ...rwd('iam.smtp'), ...rwd('iam.sms'),
];

const iamOwnerViewer = [
  'iam.read', 'iam.policy.read', 'iam.member.read', 'iam.idp.read', 'iam.action.read', 'iam.flow.read',
  'iam.restrictions.read', 'iam.feature.read', 'iam.web_key.read', 'iam.debug.read',
  'org.read', 'org.member.read', 'org.idp.read', 'org.action.read', 'org.flow.read', 'org.feature.read',
  'user.read', 'user.global.read', 'user.grant.read', 'user.membership.read', 'user.feature.read',
  'policy.read', 'project.read', 'project.member.read', 'project.role.read', 'project.app.read',
  'project.grant.read', 'project.grant.member.read', 'events.read', 'milestones.read',
  'action.target.read', 'action.execution.read', 'execution.read', 'idp.read', 'userschema.read', 'session.read',
  'iam.smtp.read', 'iam.sms.read',
];

const orgOwner = [
  ...orgAdministration, ...userAdministration, ...rwd('policy'),
  'project.read', 'project.create', 'project.write', 'project.delete', ...rwd('project.member'),
  ...rwd('project.role'), 'project.app.read', 'project.app.write', ...rwd('project.grant'),
  ...rwd('project.grant.member'), 'session.read', 'session.delete', ...rwd('idp'),
];

const orgOwnerViewer = [
  'org.read', 'org.member.read', 'org.idp.read', 'org.action.read', 'org.flow.read', 'org.feature.read',
  'user.read', 'user.global.read', 'user.grant.read', 'user.membership.read', 'user.feature.read',
  'policy.read', 'project.read', 'project.member.read', 'project.role.read', 'project.app.read',
  'project.grant.read', 'project.grant.member.read', 'project.grant.user.grant.read', 'idp.read',
];

/** Where a role can be held. */
export type RoleContext = 'system' | 'instance' | 'org' | 'project';

export interface RoleDefinition {
  readonly context: RoleContext;
  readonly permissions: ReadonlySet<string>;
}

const define = (context: RoleContext, permissions: readonly string[]): RoleDefinition => ({
  context,
  permissions: new Set(permissions),
});

export const ROLES = {
  SYSTEM_OWNER: define('system', [
    ...rwd('system.instance'), ...rwd('system.domain'), ...rwd('system.debug'), ...rwd('system.feature'),
    'system.limits.write', 'system.limits.delete', 'system.quota.write', 'system.quota.delete',
    'system.iam.member.read',
  ]),
  SYSTEM_OWNER_VIEWER: define('system', [
    'system.instance.read', 'system.domain.read', 'system.debug.read', 'system.feature.read', 'system.iam.member.read',
  ]),
  IAM_OWNER: define('instance', iamOwner),
  IAM_OWNER_VIEWER: define('instance', iamOwnerViewer),
  IAM_ORG_MANAGER: define('instance', [
    'org.create', ...orgAdministration, ...userAdministration, ...rwd('policy'), ...projectAdministration,
    'session.read', 'session.delete', ...rwd('idp'),
  ]),
  IAM_USER_MANAGER: define('instance', [
    'org.read', 'org.global.read', 'org.member.read', 'org.member.delete',
    'user.read', 'user.global.read', 'user.write', 'user.delete', ...rwd('user.grant'), 'user.membership.read',
    'user.passkey.write', ...rwd('user.feature'), 'project.read', 'project.member.read', 'project.role.read',
    'project.app.read', ...rwd('project.grant'), 'project.grant.member.read', 'session.read', 'session.delete',
  ]),
  IAM_ADMIN_IMPERSONATOR: define('instance', ['admin.impersonation', 'impersonation']),
  IAM_END_USER_IMPERSONATOR: define('instance', ['impersonation']),
  ORG_OWNER: define('org', orgOwner),
  ORG_OWNER_VIEWER: define('org', orgOwnerViewer),
  ORG_USER_MANAGER: define('org', [
    'org.read', 'user.read', 'user.global.read', 'user.write', 'user.delete', ...rwd('user.grant'),
    'user.membership.read', ...rwd('user.feature'), 'policy.read', 'project.read', 'project.role.read',
    'session.read', 'session.delete',
  ]),
  ORG_SETTINGS_MANAGER: define('org', [
    'org.read', 'org.write', 'org.member.read', ...rwd('org.idp'), ...rwd('org.feature'), ...rwd('policy'), ...rwd('idp'),
  ]),
  ORG_ADMIN_IMPERSONATOR: define('org', ['admin.impersonation', 'impersonation']),
  ORG_END_USER_IMPERSONATOR: define('org', ['impersonation']),
  PROJECT_OWNER: define('project', [
    'org.global.read', 'policy.read', 'project.read', 'project.write', 'project.delete', ...rwd('project.member'),
    ...rwd('project.role'), ...rwd('project.app'), ...rwd('project.grant'), ...rwd('project.grant.member'),
    'user.read', 'user.global.read', ...rwd('user.grant'), 'user.membership.read',
  ]),
  PROJECT_OWNER_VIEWER: define('project', [
    'org.global.read', 'policy.read', 'project.read', 'project.member.read', 'project.role.read',
    'project.app.read', 'project.grant.read', 'project.grant.member.read', 'user.read', 'user.global.read',
    'user.grant.read', 'user.membership.read',
  ]),
} as const satisfies Record<string, RoleDefinition>;

export type RoleName = keyof typeof ROLES;

export function isRoleName(name: string): name is RoleName {
  return Object.hasOwn(ROLES, name);
}

/** True when any of the roles grants the permission. Unknown role names grant nothing. */
export function rolesGrant(roles: readonly string[], permission: string): boolean {
  for (const role of roles) {
    if (isRoleName(role) && ROLES[role].permissions.has(permission)) return true;
  }
  return false;
}
