/**
 * The domain's public surface: the only module src/ imports from actors/.
 */
export * from './kernel/errors.js';
export { SYSTEM_TENANT } from './kernel/ports.js';
export { foldRecord } from './kernel/aggregate.js';
export { createIdGenerator } from './kernel/ids.js';
export { systemClock, createManualClock } from './kernel/clock.js';
export { ROLES, rolesGrant, isRoleName } from './kernel/roles.js';
export { systemOwner, instanceOwner, orgOwner, detailsOf } from './kernel/owner.js';
export { ActorSystem } from './runtime/actor-system.js';
export { instanceKind, INSTANCE_DOMAIN_SCOPE } from './system/instance.js';
export { createInstance } from './system/commands/create-instance.js';
export { instanceSettingsKind } from './instance/settings.js';
export { membershipKind, membershipId } from './instance/membership.js';
export { setDefaultOrg } from './instance/commands/set-default-org.js';
export { setFeature } from './instance/commands/set-feature.js';
export { addMembership } from './instance/commands/add-membership.js';
export { orgKind, ORG_NAME_SCOPE, ORG_DOMAIN_SCOPE, orgNameKey } from './organization/org.js';
export { userKind, USERNAME_SCOPE, PAT_SCOPE, usernameKey } from './organization/user.js';
export { createOrg } from './organization/commands/create-org.js';
export { patchOrg } from './organization/commands/patch-org.js';
export { removeOrg } from './organization/commands/remove-org.js';
export { addMachineUser } from './organization/commands/add-machine-user.js';
export { addPersonalAccessToken } from './organization/commands/add-personal-access-token.js';
export { UNIQUE_SCOPES } from './unique-scopes.js';
