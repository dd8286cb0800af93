/**
 * The domain's public surface: the only module src/ imports from actors/.
 */
export * from './kernel/errors.js';
export { renderEventsDoc } from './events-doc.js';
export type { DomainEvent } from './events.js';
export type {
  Owner,
  OwnerType,
  NewEvent,
  StoredEvent,
  StoreAdapter,
  TtlStore,
  ChangeFeed,
  StoreChange,
  CommittedBatch,
  CommittedBatches,
  ChangedStream,
  DumpEntry,
  DumpKind,
  DumpCounts,
  DumpOptions,
  LoadOptions,
  AcrossInstancesEntry,
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
  IndexRange,
  IndexWalk,
  IndexCursor,
  IndexEntry,
  IndexReads,
  RequestReads,
  UniqueKey,
  SummarizedEntry,
  IndexPage,
  AggregateLocation,
  StoredAggregate,
} from './kernel/ports.js';
export {
  defineIndexes,
  defineSubIndexes,
  subRowId,
  subRowListTable,
  storedTableOf,
  isKeptAcrossInstances,
  PARENT_INDEX,
  summarize,
  tablesOf,
  numberTerm,
  idTerm,
  cleanTerm,
  EMPTY_CATALOG,
  MAX_TERM_LENGTH,
  type IndexCatalog,
  type IndexDefinition,
  type TableIndexes,
  type RowSummary,
  type SubRow,
  type SubRowSource,
} from './kernel/indexes.js';
export { SYSTEM_TENANT } from './kernel/ports.js';
export type { AggregateKind, AggregateRecord, RecordMeta, Loaded } from './kernel/aggregate.js';
export { foldRecord } from './kernel/aggregate.js';
export type { CommandHandler, CommandContext, Decision, Outcome, KnownRecord } from './kernel/command.js';
export { knownRecord } from './kernel/command.js';
export { createIdGenerator } from './kernel/ids.js';
export { systemClock, createManualClock, type ManualClock } from './kernel/clock.js';
export { ROLES, rolesGrant, isRoleName, type RoleName, type RoleContext } from './kernel/roles.js';
export { systemOwner, instanceOwner, orgOwner, detailsOf, type ResourceDetails } from './kernel/owner.js';
export { ActorSystem, type ActorAddress, type ActorSystemOptions, type AskTracer } from './runtime/actor-system.js';
export type { Settled } from './runtime/run-command.js';
export { InstanceReadState, streamAt, type Held, type HeldById, type HeldFamily, type HeldLoader, type InstanceStates, type TextCatalog } from './instance/read-state.js';

export {
  instanceKind,
  INSTANCE_DOMAIN_SCOPE,
  NO_LIMITS,
  limitsOf,
  type InstanceEntry,
  type InstanceLimits,
  type InstanceLimitsChange,
} from './system/instance.js';
export { createInstance, type CreateInstance } from './system/commands/create-instance.js';
export { patchInstance, type PatchInstance } from './system/commands/patch-instance.js';
export { removeInstance, type RemoveInstance } from './system/commands/remove-instance.js';
export { addInstanceDomain, type AddInstanceDomain } from './system/commands/add-instance-domain.js';
export { removeInstanceDomain, type RemoveInstanceDomain } from './system/commands/remove-instance-domain.js';
export { setInstanceLimits, type SetInstanceLimits, type InstanceLimitsUpdate } from './system/commands/set-instance-limits.js';

export { instanceSettingsKind, type InstanceSettings } from './instance/settings.js';
export { membershipKind, membershipId, type Membership, type MembershipContext } from './instance/membership.js';
export { setDefaultOrg, type SetDefaultOrg } from './instance/commands/set-default-org.js';
export { setFeature, type SetFeature } from './instance/commands/set-feature.js';
export { setFeatures, type SetFeatures } from './instance/commands/set-features.js';
export { setRateLimits, type SetRateLimits } from './instance/commands/set-rate-limits.js';
export { KNOWN_FEATURES, isKnownFeature, type FeatureName } from './instance/features.js';
export { addMembership, type AddMembership } from './instance/commands/add-membership.js';
export { changeMembership, type ChangeMembership } from './instance/commands/change-membership.js';
export { removeMembership, type RemoveMembership } from './instance/commands/remove-membership.js';
export { parseMembershipId, isMembershipContext, assertRolesFit } from './instance/membership.js';
export { INSTANCE_OWNER_ROLE, type OwnerCandidate } from './instance/last-owner.js';
export {
  webKeysKind,
  activeWebKey,
  nextWebKey,
  isRotationDue,
  expiredWebKeys,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  type WebKeyState,
  type PublicJwk,
  type WebKey,
  type WebKeyRing,
  type NewWebKey,
  type WebKeysChange,
} from './instance/web-keys.js';
export { initializeWebKeys, type InitializeWebKeys } from './instance/commands/initialize-web-keys.js';
export { rotateWebKeys, type RotateWebKeys } from './instance/commands/rotate-web-keys.js';
export { pruneWebKeys, type PruneWebKeys } from './instance/commands/prune-web-keys.js';

export { orgKind, ORG_NAME_SCOPE, ORG_DOMAIN_SCOPE, orgNameKey, type Org } from './organization/org.js';
export { orgDomains } from './organization/org.js';
export {
  MAX_ORG_DOMAINS,
  dnsChallengeName,
  httpChallengePath,
  type OrgDomain,
  type DomainValidationType,
} from './organization/org-domain.js';
export { addOrgDomain, type AddOrgDomain } from './organization/commands/add-org-domain.js';
export { patchOrgDomain, type PatchOrgDomain } from './organization/commands/patch-org-domain.js';
export { removeOrgDomain, type RemoveOrgDomain } from './organization/commands/remove-org-domain.js';
export { setPrimaryOrgDomain, type SetPrimaryOrgDomain } from './organization/commands/set-primary-org-domain.js';
export {
  addOrgDomainVerification,
  type AddOrgDomainVerification,
  type DomainChallenge,
} from './organization/commands/add-org-domain-verification.js';
export { verifyOrgDomain, type VerifyOrgDomain } from './organization/commands/verify-org-domain.js';
export {
  userKind,
  USERNAME_SCOPE,
  USERNAME_INSTANCE_SCOPE,
  PAT_SCOPE,
  usernameKey,
  instanceUsernameKey,
  displayNameOf,
  type User,
  type HumanUser,
  type HumanTotp,
  type HumanOtpMessage,
  type HumanPasskey,
  type PasskeyCredential,
  type MachineUser,
  type HumanProfile,
  type MachineKey,
  type UserToken,
  type UserMetadataEntry,
  type UserLifecycle,
  type Gender,
  type PersonalAccessToken,
} from './organization/user.js';
export { createOrg, type CreateOrg } from './organization/commands/create-org.js';
export { patchOrg, type PatchOrg } from './organization/commands/patch-org.js';
export { removeOrg, type RemoveOrg } from './organization/commands/remove-org.js';
export { addMachineUser, type AddMachineUser } from './organization/commands/add-machine-user.js';
export { addPersonalAccessToken, type AddPersonalAccessToken } from './organization/commands/add-personal-access-token.js';
export { addHumanUser, defaultDisplayName, type AddHumanUser } from './organization/commands/add-human-user.js';
export { patchUser, type PatchUser } from './organization/commands/patch-user.js';
export { removeUser, type RemoveUser } from './organization/commands/remove-user.js';
export { changeUserState, type ChangeUserState, type UserStateAction } from './organization/commands/change-user-state.js';
export { setUserPassword, type SetUserPassword } from './organization/commands/set-user-password.js';
export { recordPasswordCheck, type RecordPasswordCheck, type PasswordCheckRecorded } from './organization/commands/record-password-check.js';
export {
  startTotp,
  importTotp,
  verifyTotp,
  removeTotp,
  recordOtpCheck,
  generateRecoveryCodes,
  RECOVERY_CODE_COUNT,
  type GenerateRecoveryCodes,
  type StartTotp,
  type VerifyTotp,
  type RecordOtpCheck,
  type OtpCheckOutcome,
  type OtpCheckRecorded,
} from './organization/commands/totp.js';
export {
  addPasskey,
  counterAdvances,
  MAX_PASSKEYS,
  recordPasskeyUse,
  removePasskey,
  type AddPasskey,
  type PasskeyUseOutcome,
  type RecordPasskeyUse,
  type RemovePasskey,
} from './organization/commands/passkey.js';
export { recordImpersonation, type RecordImpersonation } from './organization/commands/record-impersonation.js';
export { recordRefreshTokenReuse, type RecordRefreshTokenReuse } from './organization/commands/record-refresh-token-reuse.js';
export { verifyUserContact, type VerifyUserContact } from './organization/commands/verify-user-contact.js';
export { setUserMetadata, type SetUserMetadata } from './organization/commands/set-user-metadata.js';
export { removeUserMetadata, type RemoveUserMetadata } from './organization/commands/remove-user-metadata.js';
export { IDP_LINK_SCOPE, idpLinkKey, type IdpLink } from './organization/user-idp-link.js';
export { addUserIdpLink, type AddUserIdpLink } from './organization/commands/add-user-idp-link.js';
export { removeUserIdpLink, type RemoveUserIdpLink } from './organization/commands/remove-user-idp-link.js';
export { removePersonalAccessToken, type RemovePersonalAccessToken } from './organization/commands/remove-personal-access-token.js';
export { addMachineKey, type AddMachineKey } from './organization/commands/add-machine-key.js';
export { removeMachineKey, type RemoveMachineKey } from './organization/commands/remove-machine-key.js';
export { setMachineSecret, type SetMachineSecret } from './organization/commands/set-machine-secret.js';
export { removeMachineSecret, type RemoveMachineSecret } from './organization/commands/remove-machine-secret.js';
export {
  userSettingsKind,
  userSettingsOf,
  DEFAULT_USER_SETTINGS,
  type UserSettings,
  type PasswordComplexity,
} from './instance/user-settings.js';
export { setUserSettings, type SetUserSettings } from './instance/commands/set-user-settings.js';
export {
  userSchemaKind,
  USER_SCHEMA_TYPE_SCOPE,
  userSchemaTypeKey,
  type UserSchema,
  type Authenticator,
  type JsonDocument,
} from './instance/user-schema.js';
export { createUserSchema, type CreateUserSchema } from './instance/commands/create-user-schema.js';
export { patchUserSchema, type PatchUserSchema } from './instance/commands/patch-user-schema.js';
export { changeUserSchemaState, type ChangeUserSchemaState } from './instance/commands/change-user-schema-state.js';
export { removeUserSchema, type RemoveUserSchema } from './instance/commands/remove-user-schema.js';
export {
  projectKind,
  PROJECT_NAME_SCOPE,
  ROLE_KEY_PATTERN,
  MAX_PROJECT_ROLES,
  projectNameKey,
  type Project,
  type ProjectRole,
  type ProjectSettings,
} from './organization/project.js';
export {
  applicationKind,
  APP_CLIENT_ID_SCOPE,
  APP_NAME_SCOPE,
  MAX_APP_KEYS,
  authMethodOf,
  usesClientSecret,
  usesKeys,
  type Application,
  type AppConfig,
  type OidcConfig,
  type ApiConfig,
  type AppKey,
  type PublicRsaJwk,
  type OidcAppType,
  type OidcResponseType,
  type OidcGrantType,
  type OidcAuthMethod,
  type ApiAuthMethod,
  type AccessTokenType,
} from './organization/application.js';
export { MAX_CLOCK_SKEW_MS, isAllowedRedirectUri } from './organization/app-config.js';
export { createProject, type CreateProject } from './organization/commands/create-project.js';
export { patchProject, type PatchProject } from './organization/commands/patch-project.js';
export { activateProject, type ActivateProject } from './organization/commands/activate-project.js';
export { deactivateProject, type DeactivateProject } from './organization/commands/deactivate-project.js';
export { removeProject, type RemoveProject } from './organization/commands/remove-project.js';
export { addProjectRole, type AddProjectRole } from './organization/commands/add-project-role.js';
export { changeProjectRole, type ChangeProjectRole } from './organization/commands/change-project-role.js';
export { removeProjectRole, type RemoveProjectRole } from './organization/commands/remove-project-role.js';
export { createApp, type CreateApp, type CreatedApp } from './organization/commands/create-app.js';
export { patchApp, type PatchApp } from './organization/commands/patch-app.js';
export { removeApp, type RemoveApp } from './organization/commands/remove-app.js';
export { setAppSecret, type SetAppSecret } from './organization/commands/set-app-secret.js';
export { addAppKey, type AddAppKey } from './organization/commands/add-app-key.js';
export { removeAppKey, type RemoveAppKey } from './organization/commands/remove-app-key.js';
export { targetKind, TARGET_NAME_SCOPE, MAX_TARGET_TIMEOUT_NANOS, type Target, type TargetType, type TargetExecutionType } from './instance/target.js';
export { executionSetKind, isEffective, type ExecutionSet, type ExecutionEntry } from './instance/execution.js';
export {
  executionIdOf,
  canonicalExecutionId,
  conditionTypeOf,
  groupPrefix,
  type ConditionType,
  type ExecutionCondition,
} from './instance/execution-condition.js';
export { MAX_INCLUDE_LEVELS } from './instance/execution-includes.js';
export { createTarget, type CreateTarget } from './instance/commands/create-target.js';
export { patchTarget, type PatchTarget } from './instance/commands/patch-target.js';
export { removeTarget, type RemoveTarget } from './instance/commands/remove-target.js';
export { putExecution, entryDetails, type PutExecution, type PutExecutionReply } from './instance/commands/put-execution.js';
export { removeExecution, type RemoveExecution } from './instance/commands/remove-execution.js';
export {
  sessionKind,
  SESSION_TOKEN_SCOPE,
  DEFAULT_SESSION_LIFETIME_MS,
  MAX_SESSION_LIFETIME_MS,
  MAX_SESSION_METADATA,
  isSessionLive,
  sessionAmr,
  sessionAuthTime,
  secondFactorCheckedAt,
  type Session,
  type SessionUserAgent,
} from './organization/session.js';
export { createSession, type CreateSession, type SessionWritten } from './organization/commands/create-session.js';
export { checkSession, type CheckSession } from './organization/commands/check-session.js';
export { terminateSession, type TerminateSession } from './organization/commands/terminate-session.js';
/** The authorization request machine (login steps, prompt / max_age decisions); used with xstate's `transition()`. */
export {
  authRequestMachine,
  AUTH_REQUEST_SNAPSHOT_VERSION,
  type AuthPrompt,
  type AuthRequestContext,
  type AuthRequestEvent,
  type OtpMethod,
  type AuthRequestFailure,
  type AuthRequestInput,
  type AuthRequestStep,
  type BrowserSessionSummary,
} from './machines/auth-request.machine.js';
/** Grants: project grants (a project shared with another organization) and user grants. */
export {
  projectGrantKind,
  PROJECT_GRANT_SCOPE,
  MAX_GRANT_ROLE_KEYS,
  projectGrantKey,
  type ProjectGrant,
  type GrantState,
} from './organization/project-grant.js';
export { userGrantsKind, USER_GRANT_ID_SCOPE, MAX_USER_GRANTS, type UserGrant, type UserGrants } from './organization/user-grants.js';
export { userRolesForProjects, effectiveUserGrantRoles, userGrantRoleKeys, type RoleClaim, type RecordReader } from './organization/user-roles.js';
export { addProjectGrant, type AddProjectGrant } from './organization/commands/add-project-grant.js';
export { changeProjectGrant, type ChangeProjectGrant } from './organization/commands/change-project-grant.js';
export { changeProjectGrantState, type ChangeProjectGrantState, type GrantStateAction } from './organization/commands/change-project-grant-state.js';
export { removeProjectGrant, type RemoveProjectGrant } from './organization/commands/remove-project-grant.js';
export { addUserGrant, type AddUserGrant } from './organization/commands/add-user-grant.js';
export { changeUserGrant, type ChangeUserGrant } from './organization/commands/change-user-grant.js';
export { changeUserGrantState, type ChangeUserGrantState } from './organization/commands/change-user-grant-state.js';
export { removeUserGrant, type RemoveUserGrant } from './organization/commands/remove-user-grant.js';
export { UNIQUE_SCOPES } from './unique-scopes.js';
/** Identity providers (issue 6): reusable resources with per-organization state policies. */
export {
  statePolicyMachine,
  effectiveState,
  effectiveStateAlong,
  type StatePolicy,
  type EffectiveState,
  type StatePolicyEvent,
} from './machines/state-policy.machine.js';
export {
  idpKind,
  viewIdp,
  idpEventType,
  DEFAULT_IDP_SCOPES,
  type Idp,
  type IdpType,
  type IdpOptions,
  type IdpConfig,
  type IdpView,
  type AutoLinking,
  type DefiningPolicy,
} from './instance/idp.js';
export { idpPolicyKind, idpPolicyId, type IdpPolicy } from './organization/idp-policy.js';
export { orgLockoutKind, effectiveMaxPasswordAttempts, effectiveMaxOtpAttempts, type OrgLockout } from './organization/org-lockout.js';
export {
  loginSettingsKind,
  effectiveLoginSettings,
  mfaRequired,
  DEFAULT_LOGIN_SETTINGS,
  SECOND_FACTOR_TYPES,
  MULTI_FACTOR_TYPES,
  type LoginSettings,
  type EffectiveLoginSettings,
  type SecondFactorType,
  type MultiFactorType,
} from './instance/login-settings.js';
export { setLoginSettings, resetLoginSettings, type SetLoginSettings, type ResetLoginSettings } from './instance/commands/set-login-settings.js';
export { setOrgLockout, type SetOrgLockout } from './organization/commands/set-org-lockout.js';
export { activeIdpsForOrg, type ActiveIdp } from './instance/idp-lookup.js';
export { createIdp, type CreateIdp } from './instance/commands/create-idp.js';
export { patchIdp, type PatchIdp } from './instance/commands/patch-idp.js';
export { removeIdp, type RemoveIdp } from './instance/commands/remove-idp.js';
export { setIdpPolicy, type SetIdpPolicy } from './organization/commands/set-idp-policy.js';
/** Settings framework and language settings (issue 6). */
export {
  resolveSetting,
  applySettingsPatch,
  isNoopPatch,
  SET_STRING_MAX,
  SET_STRING_LONG_MAX,
  SET_STRING_SHORT_MAX,
  type SettingsLayer,
  type SettingsPatch,
  type ResolvedValue,
} from './kernel/settings-resolver.js';
export {
  languageSettingsKind,
  resolveLanguageSettings,
  offeredLanguages,
  SUPPORTED_LANGUAGES,
  type LanguageSettings,
  type LanguageSettingsValues,
  type ResolvedLanguageSettings,
} from './instance/language-settings.js';
export { setLanguageSettings, type SetLanguageSettings } from './instance/commands/set-language-settings.js';
/** Login text and branding settings (issue 6). */
export { textSettingsKind, textSettingsId, resolveTextSettings, type TextSettings, type TextSettingsValues } from './instance/text-settings.js';
export { setTextSettings, type SetTextSettings } from './instance/commands/set-text-settings.js';
export {
  brandingSettingsKind,
  resolveBrandingSettings,
  isBrandingColor,
  isBrandingUrl,
  BRANDING_DEFAULTS,
  type BrandingSettings,
  type BrandingSettingsValues,
  type ResolvedBrandingSettings,
} from './instance/branding-settings.js';
export { setBrandingSettings, type SetBrandingSettings } from './instance/commands/set-branding-settings.js';

export { INDEX_CATALOG, LISTED_TABLES } from './index-catalog.js';
export {
  orgIndexes,
  userIndexes,
  projectIndexes,
  applicationIndexes,
  projectGrantIndexes,
  sessionIndexes,
  orgDomainIndexes,
  userGrantIndexes,
  appKeyIndexes,
  projectRoleIndexes,
} from './organization/indexes.js';
export {
  idpIndexes,
  membershipIndexes,
  smsProviderIndexes,
  smtpProviderIndexes,
  targetIndexes,
  userSchemaIndexes,
  executionIndexes,
  webKeyIndexes,
  WEB_KEY_ACTIVE_SINCE,
  WEB_KEY_RETIRED_SINCE,
} from './instance/indexes.js';
export { instanceIndexes } from './system/indexes.js';
export { eventType as providerEventType, type ProviderActivation, type ProviderFamily } from './instance/provider-family.js';
export { SMTP_PROVIDERS, smtpProviderKind, type SmtpProvider, type SmtpTlsMode } from './instance/smtp-provider.js';
export { SMS_PROVIDERS, smsProviderKind, type SmsProvider, type SmsProviderType } from './instance/sms-provider.js';
export { createSmtpProvider, createSmsProvider, type CreateProvider } from './instance/commands/create-provider.js';
export { patchSmtpProvider, patchSmsProvider, type PatchProvider } from './instance/commands/patch-provider.js';
export { removeSmtpProvider, removeSmsProvider, type RemoveProvider } from './instance/commands/remove-provider.js';
export { setSmtpProviderActivation, setSmsProviderActivation, type SetProviderActivation } from './instance/commands/set-provider-activation.js';
export {
  OUTBOX_TABLE,
  outboxMessageKind,
  type MessageChannel,
  type MessageQueuedPayload,
  type OutboxMessage,
  type OutboxMessageEvent,
} from './organization/outbox-message.js';
export { recordMessageAttempt, type MessageAttemptOutcome, type RecordMessageAttempt } from './organization/commands/record-message-attempt.js';
export {
  requestPasswordReset,
  resetPasswordWithCode,
  type PasswordResetDone,
  type PasswordResetRequested,
  type RequestPasswordReset,
  type ResetPasswordWithCode,
} from './organization/commands/password-reset.js';
export {
  addOtpMessage,
  recordOtpCodeCheck,
  removeOtpMessage,
  sendOtpCode,
  type OtpChannel,
  type OtpChannelCommand,
  type RecordOtpCodeCheck,
  type SendOtpCode,
} from './organization/commands/otp-message.js';
export {
  sendContactCode,
  verifyContactCode,
  type ContactChannel,
  type SendContactCode,
  type VerifyContactCode,
} from './organization/commands/contact-verification.js';
export { recordSmtpProviderDelivery, recordSmsProviderDelivery, type RecordProviderDelivery } from './instance/commands/record-provider-delivery.js';
export type { ProviderDeliveryState } from './instance/provider-family.js';
