/**
 * The domain's public surface: the only module src/ imports from actors/.
 */
export * from './kernel/errors.js';
export type {
  Owner,
  OwnerType,
  NewEvent,
  StoredEvent,
  StoreAdapter,
  TtlStore,
  AppendRequest,
  AppendResult,
  RecordWrite,
  StreamExpectation,
  UniqueClaim,
  UniqueRelease,
  ProjectionState,
  Clock,
  IdGenerator,
  SecretSealer,
  Logger,
} from './kernel/ports.js';
export { SYSTEM_TENANT } from './kernel/ports.js';
export type { AggregateKind, AggregateRecord, RecordMeta, Loaded } from './kernel/aggregate.js';
export { foldRecord } from './kernel/aggregate.js';
export type { CommandHandler, CommandContext, Decision, Outcome } from './kernel/command.js';
export { createIdGenerator } from './kernel/ids.js';
export { systemClock, createManualClock, type ManualClock } from './kernel/clock.js';
export { ROLES, rolesGrant, isRoleName, type RoleName, type RoleContext } from './kernel/roles.js';
export { systemOwner, instanceOwner, orgOwner, detailsOf, type ResourceDetails } from './kernel/owner.js';
export { ActorSystem, type ActorAddress, type ActorSystemOptions } from './runtime/actor-system.js';

export { instanceKind, INSTANCE_DOMAIN_SCOPE, type InstanceEntry } from './system/instance.js';
export { createInstance, type CreateInstance } from './system/commands/create-instance.js';

export { instanceSettingsKind, type InstanceSettings } from './instance/settings.js';
export { membershipKind, membershipId, type Membership, type MembershipContext } from './instance/membership.js';
export { setDefaultOrg, type SetDefaultOrg } from './instance/commands/set-default-org.js';
export { setFeature, type SetFeature } from './instance/commands/set-feature.js';
export { addMembership, type AddMembership } from './instance/commands/add-membership.js';

export { orgKind, ORG_NAME_SCOPE, ORG_DOMAIN_SCOPE, orgNameKey, type Org } from './organization/org.js';
export { userKind, USERNAME_SCOPE, PAT_SCOPE, usernameKey, type User, type PersonalAccessToken } from './organization/user.js';
export { createOrg, type CreateOrg } from './organization/commands/create-org.js';
export { patchOrg, type PatchOrg } from './organization/commands/patch-org.js';
export { removeOrg, type RemoveOrg } from './organization/commands/remove-org.js';
export { addMachineUser, type AddMachineUser } from './organization/commands/add-machine-user.js';
export { addPersonalAccessToken, type AddPersonalAccessToken } from './organization/commands/add-personal-access-token.js';
export { UNIQUE_SCOPES } from './unique-scopes.js';
