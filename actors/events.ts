/**
 * The event catalogue: every domain event of Tessera, per aggregate, with the commands that emit
 * it and one line per payload field. docs/events.md is generated from it (`npm run docs:events`,
 * a test fails when the file is stale). Each aggregate's union (OrgEvent, UserEvent, …) types
 * its catalogue: an event without an entry, an entry without an event, or a payload field without
 * a description fails typecheck; `DomainEvent`, what `decide` may emit, is derived from this list,
 * so an aggregate left out of it cannot emit anything.
 */
import { defineEvents, type EmittedOf } from './kernel/events.js';
import type { BrandingSettingsEvent } from './instance/branding-settings.js';
import type { ExecutionEvent } from './instance/execution.js';
import type { IdpEvent } from './instance/idp.js';
import type { LanguageSettingsEvent } from './instance/language-settings.js';
import type { LoginSettingsEvent } from './instance/login-settings.js';
import type { MembershipEvent } from './instance/membership.js';
import type { InstanceSettingsEvent } from './instance/settings.js';
import type { SmsProviderActivationEvent, SmsProviderEvent } from './instance/sms-provider.js';
import type { SmtpProviderActivationEvent, SmtpProviderEvent } from './instance/smtp-provider.js';
import type { TargetEvent } from './instance/target.js';
import type { TextSettingsEvent } from './instance/text-settings.js';
import type { UserSchemaEvent } from './instance/user-schema.js';
import type { UserSettingsEvent } from './instance/user-settings.js';
import type { WebKeyEvent } from './instance/web-keys.js';
import type { ApplicationEvent } from './organization/application.js';
import type { IdpPolicyEvent } from './organization/idp-policy.js';
import type { OrgLockoutEvent } from './organization/org-lockout.js';
import type { OrgEvent } from './organization/org.js';
import type { ProjectGrantEvent } from './organization/project-grant.js';
import type { ProjectEvent } from './organization/project.js';
import type { SessionEvent } from './organization/session.js';
import type { UserEvent } from './organization/user-events.js';
import type { OutboxMessageEvent } from './organization/outbox-message.js';
import type { UserGrantEvent } from './organization/user-grants.js';
import type { InstanceEvent } from './system/instance.js';

export const instanceEvents = defineEvents<InstanceEvent>()('instance', 'instance (system tenant)', {
  'instance.added': {
    emittedBy: 'first run; CreateInstance',
    payload: { name: 'the instance name', domain: 'its first (primary) domain, claimed under `instance.domain`' },
  },
  'instance.changed': {
    emittedBy: 'PatchInstance (only when something changed)',
    payload: { name: 'the new name' },
  },
  'instance.domain.added': { emittedBy: 'AddInstanceDomain', payload: { domain: 'the domain, claimed under `instance.domain`' } },
  'instance.domain.removed': { emittedBy: 'RemoveInstanceDomain', payload: { domain: 'the domain, released' } },
  'instance.limits.set': {
    emittedBy: 'SetInstanceLimits, BulkSetInstanceLimits (one per instance whose limits changed)',
    payload: {
      block: 'only when changed: a blocked instance answers every request with 429 `instance.blocked`',
      auditLogRetentionMs: 'only when changed: how long audit events are kept (0 = unlimited)',
    },
  },
  'instance.removed': { emittedBy: 'DeleteInstance (domains released)', payload: {} },
});

export const instanceSettingsEvents = defineEvents<InstanceSettingsEvent>()('instance', 'instance', {
  'instance.default.org.set': { emittedBy: 'SetOrganizationAsInstanceDefault; first run', payload: { orgId: 'the default organization' } },
  'instance.feature.set': {
    emittedBy: 'SetFeatures (one per changed flag); first run and CreateInstance (`TESSERA_DEFAULT_FEATURES`)',
    payload: { name: 'the feature flag', value: 'on or off' },
  },
  'instance.rate_limits.set': {
    emittedBy: 'SetRateLimitSettings (only when something changed)',
    payload: {
      limits: "the instance's own rate limits after the change, by limit name (`N/duration` or `off`; a limit not listed is the node default)",
    },
  },
});

export const webKeyEvents = defineEvents<WebKeyEvent>()('web_keys', 'web keys (instance)', {
  'web_key.added': {
    emittedBy: 'first keys of an instance; every rotation (RotateWebKeys, `tessera keys rotate`, schedule)',
    payload: {
      kid: 'the key id',
      algorithm: '`RS256`, `ES256` or `EdDSA`',
      publicJwk: 'the public key as a JWK',
      privateKey: 'PKCS#8, sealed with the master key (never in clear)',
    },
  },
  'web_key.activated': { emittedBy: 'first keys; every rotation', payload: { kid: 'the key that signs from now on' } },
  'web_key.retired': { emittedBy: 'every rotation', payload: { kid: 'the key that stops signing (still published)' } },
  'web_key.removed': {
    emittedBy: "rotation or maintenance pass, once a retired key's window is over",
    payload: { kid: 'the key no longer published' },
  },
});

const memberPayload = {
  contextType: '`system`, `instance`, `org` or `project`',
  contextId: 'the instance, organization or project id (empty for the system)',
  userId: 'the member',
  roles: 'the whole list after the change (on removal, the roles held)',
} as const;

export const membershipEvents = defineEvents<MembershipEvent>()('membership', 'membership', {
  'system.member.added': { emittedBy: 'CreateMembership in the system context', payload: memberPayload },
  'system.member.changed': { emittedBy: 'PatchMembership in the system context (only when the set of roles changed)', payload: memberPayload },
  'system.member.removed': { emittedBy: 'DeleteMembership in the system context', payload: memberPayload },
  'instance.member.added': { emittedBy: 'CreateMembership in the instance context; first run (admin)', payload: memberPayload },
  'instance.member.changed': { emittedBy: 'PatchMembership in the instance context (only when the set of roles changed)', payload: memberPayload },
  'instance.member.removed': { emittedBy: 'DeleteMembership in the instance context', payload: memberPayload },
  'org.member.added': { emittedBy: 'CreateMembership in an organization', payload: memberPayload },
  'org.member.changed': { emittedBy: 'PatchMembership in an organization (only when the set of roles changed)', payload: memberPayload },
  'org.member.removed': { emittedBy: 'DeleteMembership in an organization', payload: memberPayload },
  'project.member.added': { emittedBy: "CreateMembership in a project (owner: the project's organization)", payload: memberPayload },
  'project.member.changed': { emittedBy: 'PatchMembership in a project (only when the set of roles changed)', payload: memberPayload },
  'project.member.removed': { emittedBy: 'DeleteMembership in a project', payload: memberPayload },
});

export const orgEvents = defineEvents<OrgEvent>()('org', 'org', {
  'org.added': {
    emittedBy: 'CreateOrganization',
    payload: { name: 'the name, unique per instance ignoring case', primaryDomain: 'the generated domain `<slug of name>.<instance domain>`' },
  },
  'org.changed': { emittedBy: 'PatchOrganization (only when something changed)', payload: { name: 'the new name' } },
  'org.removed': { emittedBy: 'DeleteOrganization', payload: {} },
  'org.domain.added': { emittedBy: 'CreateDomain', payload: { domain: 'the domain (lower case)', validationType: '`dns` or `http`' } },
  'org.domain.changed': {
    emittedBy: 'PatchDomain (only when the validation type changed)',
    payload: { domain: 'the domain', validationType: '`dns` or `http`' },
  },
  'org.domain.verification.added': {
    emittedBy: 'GenerateDomainValidation (a new challenge replaces the earlier one)',
    payload: { domain: 'the domain', validationType: '`dns` or `http`', token: 'the public challenge value' },
  },
  'org.domain.verified': { emittedBy: 'ValidateDomain after a successful DNS / HTTP check', payload: { domain: 'the domain' } },
  'org.domain.primary.set': {
    emittedBy: "SetDomainAsPrimary (the org's `primaryDomain`, login-name suffix, follows)",
    payload: { domain: 'the new primary domain' },
  },
  'org.domain.removed': {
    emittedBy: 'DeleteDomain (the domain is released; DeleteOrganization releases all without this event)',
    payload: { domain: 'the domain' },
  },
});

const usernameInstanceWide = 'true when the username was also claimed instance-wide (absent in older events = false)';

export const userEvents = defineEvents<UserEvent>()('user', 'user', {
  'user.machine.added': {
    emittedBy: 'CreateUser (machine); first run (admin)',
    payload: {
      orgId: "the user's organization",
      username: 'the username',
      name: 'the display name',
      description: 'free text',
      accessTokenType: '`bearer` or `jwt`',
      usernameInstanceWide,
    },
  },
  'user.human.added': {
    emittedBy: 'CreateUser (human); login UI external login (auto or manual creation)',
    payload: {
      orgId: "the user's organization",
      username: 'the username',
      profile: '`{givenName, familyName, displayName, nickname, preferredLanguage, gender}`',
      email: '`{address, verified}`',
      phone: "`{number, verified}` ('' when none)",
      passwordHash: "argon2id PHC string, '' for none; never the password",
      passwordChangeRequired: 'the user must set a new password at the next login',
      usernameInstanceWide,
    },
  },
  'user.human.changed': {
    emittedBy: 'PatchUser (profile fields that changed)',
    payload: {
      givenName: 'when changed',
      familyName: 'when changed',
      displayName: 'when changed',
      nickname: 'when changed',
      preferredLanguage: 'when changed',
      gender: 'when changed',
    },
  },
  'user.human.email.changed': { emittedBy: 'PatchUser (email)', payload: { address: 'the new address', verified: 'whether it is verified already' } },
  'user.human.email.verified': { emittedBy: 'VerifyEmail; VerifyEmailCode and the login UI verification step (the pending, unexpired code); PatchUser with `isVerified` on the same address', payload: {} },
  'user.human.phone.changed': {
    emittedBy: 'PatchUser (phone; an empty number removes it)',
    payload: { number: 'the new number', verified: 'whether it is verified already' },
  },
  'user.human.phone.verified': { emittedBy: 'VerifyPhone; VerifyPhoneCode and the login UI verification step (the pending, unexpired code)', payload: {} },
  'user.human.email.code.added': {
    emittedBy: 'SendEmailCode; registration in the login UI; PatchUser with a new unverified email; the login UI verification step. In the same append as the `message.queued` carrying the code; a newer code replaces it, `user.human.email.changed` / `.verified` clear it (single use)',
    payload: {
      codeHash: 'SHA-256 of the code bound to the user and the address (the code itself is never recorded in clear)',
      expiresAt: 'epoch ms after which the code is refused (TESSERA_CONTACT_CODE_TTL_MS)',
      messageId: 'the outbox message carrying the code',
    },
  },
  'user.human.phone.code.added': {
    emittedBy: 'SendPhoneCode; PatchUser with a new unverified phone number; the login UI verification step. In the same append as the `message.queued` (SMS) carrying the code; a newer code replaces it, `user.human.phone.changed` / `.verified` clear it (single use)',
    payload: {
      codeHash: 'SHA-256 of the code bound to the user and the number (the code itself is never recorded in clear)',
      expiresAt: 'epoch ms after which the code is refused (TESSERA_CONTACT_CODE_TTL_MS)',
      messageId: 'the outbox message carrying the code',
    },
  },
  'user.human.password.code.added': {
    emittedBy: '"Forgot password?" in the login UI; RequestPasswordReset. In the same append as the `message.queued` carrying the code; a newer code replaces it, the next `user.human.password.changed` clears it (single use)',
    payload: {
      codeHash: 'SHA-256 of the code bound to the user (the code itself is never recorded in clear)',
      expiresAt: 'epoch ms after which the code is refused (TESSERA_PASSWORD_RESET_CODE_TTL_MS)',
      channel: '`mail`',
      messageId: 'the outbox message carrying the code',
    },
  },
  'user.human.password.changed': {
    emittedBy: 'SetPassword (resets the failed-check counter); a password reset with a code (login UI, SetPassword with `verificationCode`: clears the code, the user\'s sessions end in the same append)',
    payload: { passwordHash: 'argon2id PHC string (never the password)', changeRequired: 'the user must change it at the next login' },
  },
  'user.human.password.rehashed': {
    emittedBy: 'a good password check against an old hash (an imported bcrypt hash, older argon2 parameters)',
    payload: { passwordHash: 'the same password as argon2id' },
  },
  'user.human.password.check.succeeded': { emittedBy: '`verifyUserPassword` (login, self-service password change)', payload: {} },
  'user.human.password.check.failed': {
    emittedBy: "`verifyUserPassword`; a failure at the `maxPasswordAttempts` in force is followed by `user.locked`",
    payload: {},
  },
  'user.machine.changed': {
    emittedBy: 'PatchUser (machine fields that changed)',
    payload: { name: 'when changed', description: 'when changed', accessTokenType: 'when changed' },
  },
  'user.machine.key.added': {
    emittedBy: 'AddMachineKey',
    payload: { id: 'the key id', publicKey: 'SPKI PEM (the private key is never stored)', expiresAt: 'epoch ms' },
  },
  'user.machine.key.removed': { emittedBy: 'DeleteMachineKey', payload: { id: 'the key id' } },
  'user.machine.secret.set': { emittedBy: 'GenerateMachineSecret', payload: { digest: 'SHA-256 of the secret (never the secret)' } },
  'user.machine.secret.removed': { emittedBy: 'RemoveMachineSecret', payload: {} },
  'user.token.added': {
    emittedBy: 'personal access token creation',
    payload: { id: 'the token id', digest: 'SHA-256 of the token (never the token)', expiresAt: 'epoch ms' },
  },
  'user.token.removed': { emittedBy: 'personal access token removal', payload: { id: 'the token id' } },
  'user.username.changed': { emittedBy: 'PatchUser (username)', payload: { username: 'the new username', usernameInstanceWide } },
  'user.locked': { emittedBy: 'LockUser; lockout after failed password checks', payload: {} },
  'user.unlocked': { emittedBy: 'UnlockUser (resets the counter)', payload: {} },
  'user.deactivated': { emittedBy: 'DeactivateUser', payload: {} },
  'user.reactivated': { emittedBy: 'ActivateUser', payload: {} },
  'user.metadata.set': { emittedBy: 'SetUserMetadata (only when the value changed)', payload: { key: 'the metadata key', value: 'the value (base64)' } },
  'user.metadata.removed': { emittedBy: 'DeleteUserMetadata', payload: { key: 'the metadata key' } },
  'user.idp.link.added': {
    emittedBy:
      'login UI external login: auto creation (with `user.human.added`, one append), confirmed auto linking, manual linking, manual creation; claims `user.idp_link` = `idpId:externalUserId`',
    payload: { idpId: 'the identity provider', externalUserId: '`sub` at the provider', externalUsername: 'the username at the provider' },
  },
  'user.idp.link.removed': {
    emittedBy: '`removeUserIdpLink` (no API yet); DeleteUser releases every link claim without this event',
    payload: { idpId: 'the identity provider', externalUserId: '`sub` at the provider' },
  },
  'user.impersonated': {
    emittedBy: 'token exchange with an actor token (impersonation), before the tokens are issued',
    payload: { actorUserId: 'the user acting in this user’s name', clientId: 'the client that asked' },
  },
  'user.refresh.token.reused': {
    emittedBy:
      "the refresh_token grant when the owning client presents a refresh token that was already rotated (RFC 9700 §4.14.2): the grant's whole token family was just revoked; once per grant",
    payload: { clientId: 'the client', grantId: 'the revoked grant' },
  },
  'user.human.mfa.otp.added': {
    emittedBy: 'AddTOTP (starts a TOTP enrolment; replaces an unverified one)',
    payload: { sealedSecret: 'the base32 secret, sealed with the master key' },
  },
  'user.human.mfa.otp.verified': { emittedBy: 'VerifyTOTP with a current code', payload: { step: 'RFC 6238 time step of the accepted code' } },
  'user.human.mfa.otp.removed': { emittedBy: 'RemoveTOTP', payload: {} },
  'user.human.mfa.otp.check.succeeded': {
    emittedBy: 'login UI TOTP step: a code of a step after the last accepted one (resets the failed-OTP counter)',
    payload: { step: 'the accepted time step (a code of this step or earlier is a replay)' },
  },
  'user.human.mfa.otp.check.failed': {
    emittedBy: "login UI TOTP step: a wrong or replayed code; a failure at the instance's `maxOtpAttempts` is followed by `user.locked`",
    payload: {},
  },
  'user.human.mfa.recovery.codes.generated': {
    emittedBy: 'GenerateRecoveryCodes (replaces the previous set; RemoveTOTP drops them)',
    payload: { digests: 'SHA-256 of each code (never the codes)' },
  },
  'user.human.mfa.recovery.code.used': {
    emittedBy: 'login UI TOTP step with a recovery code (that code is gone; resets the failed-OTP counter)',
    payload: { digest: 'SHA-256 of the used code' },
  },
  'user.human.otp.email.added': { emittedBy: 'AddOTPEmail (needs a verified email address), or the login UI\'s enrolment with the emailed code', payload: {} },
  'user.human.otp.email.removed': { emittedBy: 'RemoveOTPEmail', payload: {} },
  'user.human.otp.email.code.added': {
    emittedBy: 'login UI, OTP by email step: a login code was sent. In the same append as the `message.queued` carrying it; a newer code replaces it, a successful check clears it (single use)',
    payload: {
      codeHash: 'SHA-256 of the code bound to the user (the code itself is never recorded in clear)',
      expiresAt: 'epoch ms after which the code is refused (TESSERA_OTP_CODE_TTL_MS)',
      messageId: 'the outbox message carrying the code',
    },
  },
  'user.human.otp.enrolment.code.added': {
    emittedBy:
      'login UI, enrolment during login (forced second factor): a code was sent to the verified email address / phone number to set up OTP by that channel. In the same append as the `message.queued` carrying it; a newer code replaces it; the right code adds the factor (`user.human.otp.email|sms.added`, which clears it)',
    payload: {
      channel: '`email` or `sms`',
      codeHash: 'SHA-256 of the code bound to the user (the code itself is never recorded in clear)',
      expiresAt: 'epoch ms after which the code is refused (TESSERA_OTP_CODE_TTL_MS)',
      messageId: 'the outbox message carrying the code',
    },
  },
  'user.human.otp.email.check.succeeded': { emittedBy: 'login UI, OTP by email step: the pending, unexpired code (clears it; resets the failed-OTP counter)', payload: {} },
  'user.human.otp.email.check.failed': {
    emittedBy: "login UI, OTP by email step: a wrong, used or expired code; a failure at the instance's `maxOtpAttempts` is followed by `user.locked`",
    payload: {},
  },
  'user.human.otp.sms.added': { emittedBy: 'AddOTPSMS (needs a verified phone number), or the login UI\'s enrolment with the code sent by SMS', payload: {} },
  'user.human.otp.sms.removed': { emittedBy: 'RemoveOTPSMS', payload: {} },
  'user.human.otp.sms.code.added': {
    emittedBy: 'login UI, OTP by SMS step: a login code was sent. In the same append as the `message.queued` carrying it; a newer code replaces it, a successful check clears it (single use)',
    payload: {
      codeHash: 'SHA-256 of the code bound to the user (the code itself is never recorded in clear)',
      expiresAt: 'epoch ms after which the code is refused (TESSERA_OTP_CODE_TTL_MS)',
      messageId: 'the outbox message carrying the code',
    },
  },
  'user.human.otp.sms.check.succeeded': { emittedBy: 'login UI, OTP by SMS step: the pending, unexpired code (clears it; resets the failed-OTP counter)', payload: {} },
  'user.human.otp.sms.check.failed': {
    emittedBy: "login UI, OTP by SMS step: a wrong, used or expired code; a failure at the instance's `maxOtpAttempts` is followed by `user.locked`",
    payload: {},
  },
  'user.human.passkey.added': {
    emittedBy: 'VerifyPasskeyRegistration (the attestation was verified for the instance domain and issuer origin)',
    payload: {
      id: 'the passkey id (its registration id)',
      name: 'a name the user gave it',
      credentialId: 'the WebAuthn credential id (base64url)',
      publicKey: 'the COSE public key (base64url)',
      counter: 'the signature counter at registration',
      transports: 'transport hints of the authenticator',
    },
  },
  'user.human.passkey.used': {
    emittedBy: 'login UI passkey step: an assertion verified with a signature counter above the stored one (or both 0)',
    payload: { id: 'the passkey', counter: 'the new signature counter' },
  },
  'user.human.passkey.removed': { emittedBy: 'RemovePasskey', payload: { id: 'the passkey' } },
  'user.removed': { emittedBy: 'DeleteUser (username claims and token digests released)', payload: {} },
});

export const userSettingsEvents = defineEvents<UserSettingsEvent>()('usersettings', 'user settings (instance)', {
  'instance.policy.password.complexity.set': {
    emittedBy: 'SetUserSettings (password complexity changed)',
    payload: {
      minLength: 'minimum length',
      hasUppercase: 'an upper-case letter is required',
      hasLowercase: 'a lower-case letter is required',
      hasNumber: 'a digit is required',
      hasSymbol: 'a symbol is required',
    },
  },
  'instance.policy.lockout.set': { emittedBy: 'SetUserSettings', payload: { maxPasswordAttempts: 'failed checks before a user is locked (0 = never lock)' } },
  'instance.policy.lockout.otp.set': { emittedBy: 'SetUserSettings', payload: { maxOtpAttempts: 'failed TOTP checks before a user is locked (0 = never lock)' } },
  'instance.policy.username.set': { emittedBy: 'SetUserSettings', payload: { uniquePerInstance: 'usernames are also claimed instance-wide' } },
  'instance.policy.login.unknown_usernames.set': {
    emittedBy: 'SetUserSettings (`ignoreUnknownUsernames` changed)',
    payload: { ignore: 'the login UI does not reveal that a login name is unknown' },
  },
});

export const orgLockoutEvents = defineEvents<OrgLockoutEvent>()('org_lockout', 'organization lockout (`org_lockout`, id = org id)', {
  'org.policy.lockout.set': {
    emittedBy: 'SetUserSettings with an organization context',
    payload: { maxPasswordAttempts: "the organization's own threshold (0 = never lock)" },
  },
  'org.policy.lockout.otp.set': {
    emittedBy: 'SetUserSettings with an organization context (`maxOtpAttempts`)',
    payload: { maxOtpAttempts: "the organization's own threshold of failed OTP checks (0 = never lock)" },
  },
});

const loginSettingsFields = {
  allowUsernamePassword: 'when changed: local users may sign in with login name and password',
  allowRegister: 'when changed: the login UI offers self-registration',
  allowExternalIdp: 'when changed: the login UI offers external identity providers',
  forceMfa: 'when changed: every login must pass a second factor',
  forceMfaLocalOnly: 'when changed: every login except through an external identity provider must pass a second factor',
  hidePasswordReset: 'when changed: no password reset in the login UI',
  secondFactors: 'when changed: the allowed second factors (`totp`, `otp_email`, `otp_sms`, `u2f`)',
  multiFactors: 'when changed: the allowed passwordless factors (`passkey`)',
  passwordlessAllowed: 'when changed: passwordless login is allowed',
  emailVerificationRequired: 'when changed: the login asks to verify an unverified email before it finishes',
  phoneVerificationRequired: 'when changed: the login asks to verify an unverified phone number before it finishes',
} as const;

export const loginSettingsEvents = defineEvents<LoginSettingsEvent>()('login_settings', 'login settings (id: the instance id or the org id)', {
  'instance.policy.login.set': { emittedBy: 'SetLoginSettings (only the changed fields)', payload: loginSettingsFields },
  'org.policy.login.set': {
    emittedBy: 'SetLoginSettings with an organization context (the first one carries every field: the copy of the instance policy it starts from)',
    payload: loginSettingsFields,
  },
  'org.policy.login.removed': { emittedBy: 'ResetLoginSettings: the organization inherits the instance policy again', payload: {} },
});

export const userSchemaEvents = defineEvents<UserSchemaEvent>()('userschema', 'user schema (instance)', {
  'userschema.added': {
    emittedBy: 'CreateUserSchema',
    payload: { type: 'the schema type, unique per instance', schema: 'the JSON Schema document', possibleAuthenticators: 'authenticators users of this type may use' },
  },
  'userschema.changed': {
    emittedBy: 'PatchUserSchema (only what changed; a new `schema` increments the revision)',
    payload: { type: 'when changed', schema: 'when changed', possibleAuthenticators: 'when changed' },
  },
  'userschema.deactivated': { emittedBy: 'DeactivateUserSchema', payload: {} },
  'userschema.reactivated': { emittedBy: 'ActivateUserSchema', payload: {} },
  'userschema.removed': { emittedBy: 'DeleteUserSchema (type released)', payload: {} },
});

const projectSettings = {
  projectRoleAssertion: "always include the project's roles in userinfo and introspection",
  projectRoleCheck: 'only users with a grant on the project may log in',
  hasProjectCheck: 'only users of organizations granted the project may log in',
} as const;

export const projectEvents = defineEvents<ProjectEvent>()('project', 'project', {
  'project.added': { emittedBy: 'CreateProject', payload: { name: 'the name, unique per organization', ...projectSettings } },
  'project.changed': {
    emittedBy: 'PatchProject (only when something changed; only the changed fields)',
    payload: { name: 'when changed: the new name', ...projectSettings },
  },
  'project.deactivated': { emittedBy: 'DeactivateProject (only on a state change)', payload: {} },
  'project.reactivated': { emittedBy: 'ActivateProject (only on a state change)', payload: {} },
  'project.removed': { emittedBy: 'DeleteProject (after `project.application.removed` for each of its apps)', payload: {} },
  'project.role.added': { emittedBy: 'CreateProjectRole', payload: { key: 'the role key', displayName: 'shown name', group: 'free grouping label' } },
  'project.role.changed': {
    emittedBy: 'PatchProjectRole (only when something changed)',
    payload: { key: 'the role key', displayName: 'when changed', group: 'when changed' },
  },
  'project.role.removed': { emittedBy: 'DeleteProjectRole', payload: { key: 'the role key' } },
});

export const projectGrantEvents = defineEvents<ProjectGrantEvent>()('project.grant', "project grant (owner: the project's org)", {
  'project.grant.added': {
    emittedBy: 'CreateProjectGrant',
    payload: { projectId: 'the granted project', grantedOrgId: 'the organization it is granted to', roleKeys: 'the granted roles (sorted)' },
  },
  'project.grant.changed': { emittedBy: 'PatchProjectGrant (only when the keys changed)', payload: { roleKeys: 'the granted roles (sorted)' } },
  'project.grant.deactivated': { emittedBy: 'DeactivateProjectGrant (only on a state change)', payload: {} },
  'project.grant.reactivated': { emittedBy: 'ActivateProjectGrant (only on a state change)', payload: {} },
  'project.grant.removed': { emittedBy: 'DeleteProjectGrant', payload: {} },
});

export const userGrantEvents = defineEvents<UserGrantEvent>()('user.grants', "user grants (one aggregate per user, id = user id; owner: the user's org)", {
  'user.grant.added': {
    emittedBy: 'CreateUserGrant',
    payload: {
      grantId: 'the grant id',
      userId: 'the user',
      projectId: 'the project',
      projectGrantId: "the project grant ('' in the project's own org)",
      roleKeys: 'the granted roles',
    },
  },
  'user.grant.changed': { emittedBy: 'PatchUserGrant (only when the keys changed)', payload: { grantId: 'the grant id', roleKeys: 'the granted roles' } },
  'user.grant.deactivated': { emittedBy: 'DeactivateUserGrant (only on a state change)', payload: { grantId: 'the grant id' } },
  'user.grant.reactivated': { emittedBy: 'ActivateUserGrant (only on a state change)', payload: { grantId: 'the grant id' } },
  'user.grant.removed': { emittedBy: 'DeleteUserGrant', payload: { grantId: 'the grant id' } },
});

export const applicationEvents = defineEvents<ApplicationEvent>()('application', 'application', {
  'project.application.added': {
    emittedBy: 'CreateApp',
    payload: { projectId: 'the project', name: 'the app name', clientId: 'the OAuth client id', config: '`{type: oidc, oidc}` or `{type: api, api}`' },
  },
  'project.application.changed': { emittedBy: 'PatchApp renaming the app', payload: { name: 'the new name' } },
  'project.application.oidc.config.changed': {
    emittedBy: 'PatchApp (only the OIDC configuration fields that changed)',
    payload: {
      appType: '`web`, `user_agent` or `native`',
      redirectUris: 'registered redirect URIs',
      postLogoutRedirectUris: 'registered post-logout redirect URIs',
      responseTypes: 'allowed response types',
      grantTypes: 'allowed grant types',
      authMethod: 'client authentication method',
      accessTokenType: '`bearer` or `jwt`',
      idTokenUserinfoAssertion: 'user claims in the ID token',
      idTokenRoleAssertion: 'roles in the ID token',
      accessTokenRoleAssertion: 'roles in a JWT access token',
      clockSkewMs: 'tolerated clock difference, 0..5000 ms',
      devMode: 'relaxed redirect URI rules for development',
      additionalOrigins: 'extra CORS origins',
      skipNativeAppSuccessPage: 'no success page for native apps',
    },
  },
  'project.application.api.config.changed': {
    emittedBy: 'PatchApp (only when the API configuration changed)',
    payload: { authMethod: 'client authentication method of the API' },
  },
  'project.application.secret.changed': {
    emittedBy: 'CreateApp with a secret auth method; GenerateAppSecret',
    payload: { digest: 'SHA-256 of the secret (never the secret)' },
  },
  'project.application.secret.removed': { emittedBy: 'PatchApp switching to an auth method without secret', payload: {} },
  'project.application.key.added': {
    emittedBy: 'CreateAppKey',
    payload: { id: 'the key id', publicKey: 'RSA JWK (never the private key)', expiresAt: 'epoch ms' },
  },
  'project.application.key.removed': { emittedBy: 'DeleteAppKey', payload: { id: 'the key id' } },
  'project.application.removed': { emittedBy: 'DeleteApp; DeleteProject', payload: {} },
});

export const sessionEvents = defineEvents<SessionEvent>()('session', "session (owner: the user's organization)", {
  'session.added': { emittedBy: 'CreateSession; `createLoginSession` (login UI)', payload: { userAgent: '`{userAgent, ip}` of the client' } },
  'session.user.checked': { emittedBy: 'CreateSession', payload: { userId: 'the checked user' } },
  'session.password.checked': { emittedBy: 'CreateSession / PatchSession with a correct password; `addPasswordCheck`', payload: {} },
  'session.pat.checked': {
    emittedBy: 'CreateSession / PatchSession with a live personal access token of the (machine) user',
    payload: { tokenId: 'the token id' },
  },
  'session.idp.checked': { emittedBy: 'login UI external login (the session of a user linked to the IDP)', payload: { idpId: 'the identity provider' } },
  'session.totp.checked': { emittedBy: 'login UI TOTP step (the session is created with the password and this check together)', payload: {} },
  'session.otp.email.checked': { emittedBy: 'login UI OTP by email step (the session is created with the first factor and this check together)', payload: {} },
  'session.otp.sms.checked': { emittedBy: 'login UI OTP by SMS step (the session is created with the first factor and this check together)', payload: {} },
  'session.webAuthN.checked': {
    emittedBy: 'login UI passkey step: after the password (second factor) or alone (passwordless)',
    payload: {
      passkeyId: 'the passkey used',
      userVerified: 'the authenticator verified the user (PIN, biometrics): counts as two factors',
      multiFactor: 'when set: false when the login policy (multiFactors without passkey) did not count the passkey as two factors',
    },
  },
  'session.token.set': {
    emittedBy: 'CreateSession',
    payload: { digest: 'SHA-256 of the session token (never the token; claimed under `session.token`)' },
  },
  'session.lifetime.set': { emittedBy: 'CreateSession; PatchSession with `lifetime`', payload: { expiresAt: 'epoch ms' } },
  'session.metadata.set': {
    emittedBy: 'CreateSession with metadata; PatchSession (changed keys only)',
    payload: { metadata: 'key → value; an empty value removed the key' },
  },
  'session.terminated': { emittedBy: 'DeleteSession; `terminateSession` (token digest released); a password reset with a code, for every live session of the user, in the same append as `user.human.password.changed`', payload: {} },
});

const targetFields = {
  name: 'unique per instance ignoring case',
  targetType: '`rest_webhook` or `rest_request_response`',
  url: 'the endpoint',
  timeoutNanos: 'call timeout, at most 270 s',
  executionType: '`none`, `async` or `interrupt`',
  signingKey: 'sealed with the master key; never sent to event targets',
} as const;

export const targetEvents = defineEvents<TargetEvent>()('target', 'target (instance)', {
  'action.target.added': { emittedBy: 'CreateTarget', payload: targetFields },
  'action.target.changed': {
    emittedBy: 'PatchTarget (only the changed fields; a key rotation records the new sealed key and the previous one with its expiry)',
    payload: {
      ...targetFields,
      previousSigningKey: 'the sealed previous key, still signing during the grace period',
      previousKeyExpiresAt: 'epoch ms when the previous key stops signing',
    },
  },
  'action.target.removed': {
    emittedBy: 'DeleteTarget (followed, in the same append, by `action.execution.set` for every execution that listed it)',
    payload: {},
  },
});

export const executionEvents = defineEvents<ExecutionEvent>()('execution', 'executions of the instance (one aggregate, id = instance id)', {
  'action.execution.set': {
    emittedBy: 'PutExecution (only when targets or includes changed); DeleteTarget',
    payload: { id: 'the execution id', condition: 'request, response, function or event condition', targets: 'target ids called', includes: 'execution ids included' },
  },
  'action.execution.removed': { emittedBy: 'DeleteExecution', payload: { id: 'the execution id' } },
});

const idpAdded = {
  name: 'the shown name',
  idpType: '`forge` or `forge_self_hosted`',
  policy: '`activate` or `deactivate` in the defining context',
  options: 'linking and creation options',
  config: '`{clientId, clientSecret (sealed with the master key), scopes, issuer}`',
} as const;
const idpChanged = {
  name: 'when changed',
  policy: 'when changed',
  options: 'when changed',
  config: 'the whole config when any config field changed',
} as const;

export const idpEvents = defineEvents<IdpEvent>()('idp', 'idp (owner: the instance or the defining organization)', {
  'instance.idp.forge.added': { emittedBy: 'CreateForgeIDP in the instance', payload: idpAdded },
  'org.idp.forge.added': { emittedBy: 'CreateForgeIDP in an organization', payload: idpAdded },
  'instance.idp.forge.changed': { emittedBy: 'PatchForgeIDP in the instance (only the changed fields)', payload: idpChanged },
  'org.idp.forge.changed': { emittedBy: 'PatchForgeIDP in the defining organization (only the changed fields)', payload: idpChanged },
  'instance.idp.forge_self_hosted.added': { emittedBy: 'CreateForgeSelfHostedIDP in the instance (`config.issuer` set)', payload: idpAdded },
  'org.idp.forge_self_hosted.added': { emittedBy: 'CreateForgeSelfHostedIDP in an organization (`config.issuer` set)', payload: idpAdded },
  'instance.idp.forge_self_hosted.changed': { emittedBy: 'PatchForgeSelfHostedIDP in the instance', payload: idpChanged },
  'org.idp.forge_self_hosted.changed': { emittedBy: 'PatchForgeSelfHostedIDP in the defining organization', payload: idpChanged },
  'instance.idp.removed': { emittedBy: 'DeleteIDP in the instance', payload: {} },
  'org.idp.removed': { emittedBy: 'DeleteIDP in the defining organization', payload: {} },
});

export const idpPolicyEvents = defineEvents<IdpPolicyEvent>()('idp_policy', 'idp_policy (id `<orgId>:<idpId>`, owner: the organization)', {
  'org.idp.policy.set': {
    emittedBy:
      'PatchForgeIDP / PatchForgeSelfHostedIDP with `idp.statePolicy` from an organization reusing an instance IDP (only when the policy changes)',
    payload: { idpId: 'the instance IDP', policy: '`inherit`, `activate` or `deactivate`' },
  },
});

const resetField = 'names of properties reset to the parent value';

export const languageSettingsEvents = defineEvents<LanguageSettingsEvent>()('language_settings', 'language_settings (id: the instance id or the org id)', {
  'instance.settings.language.set': {
    emittedBy: 'SetLanguages on the instance (only when something changes)',
    payload: { set: '`{defaultLanguage?, restrictedLanguages?}`', reset: resetField },
  },
  'org.settings.language.set': {
    emittedBy: 'SetLanguages on an organization (only when something changes)',
    payload: { set: '`{defaultLanguage?, restrictedLanguages?}`', reset: resetField },
  },
});

const textPayload = { language: 'the language of the texts', set: '`{<catalog key>: text}`', reset: "keys reset to the parent's text" } as const;

export const textSettingsEvents = defineEvents<TextSettingsEvent>()('text_settings', 'text_settings (id: `<instance id or org id>:<language>`)', {
  'instance.settings.text.set': { emittedBy: 'SetTexts on the instance (only when something changes)', payload: textPayload },
  'org.settings.text.set': { emittedBy: 'SetTexts on an organization (only when something changes)', payload: textPayload },
});

const brandingPayload = {
  set: '`{primaryColor?, backgroundColor?, warnColor?, fontColor?, logoUrl?, fontUrl?, hideLoginNameSuffix?, disableWatermark?, *Dark?}`',
  reset: resetField,
} as const;

export const brandingSettingsEvents = defineEvents<BrandingSettingsEvent>()('branding_settings', 'branding_settings (id: the instance id or the org id)', {
  'instance.settings.branding.set': { emittedBy: 'SetBranding on the instance (only when something changes)', payload: brandingPayload },
  'org.settings.branding.set': { emittedBy: 'SetBranding on an organization (only when something changes)', payload: brandingPayload },
});

export const smtpProviderEvents = defineEvents<SmtpProviderEvent>()('smtp_provider', 'smtp_provider (instance)', {
  'instance.smtp.provider.added': {
    emittedBy: 'CreateSMTPProvider',
    payload: {
      description: 'shown name',
      host: 'the SMTP server (must resolve to a public address unless private networks are allowed)',
      port: 'its port',
      tlsMode: '`none`, `starttls` or `tls`',
      user: "login name ('' when none)",
      password: "sealed with the master key ('' when none)",
      senderAddress: 'the From address',
      senderName: 'the From name',
      replyTo: "Reply-To address ('' when none)",
    },
  },
  'instance.smtp.provider.changed': {
    emittedBy: 'PatchSMTPProvider (only the changed fields; a password equal to the stored one is no change)',
    payload: {
      description: 'when changed',
      host: 'when changed',
      port: 'when changed',
      tlsMode: 'when changed',
      user: 'when changed',
      password: 'when changed, sealed',
      senderAddress: 'when changed',
      senderName: 'when changed',
      replyTo: 'when changed',
    },
  },
  'instance.smtp.provider.delivery.failed': {
    emittedBy: 'the outbox worker: a message sent through the provider failed (not repeated for the same error within a minute); shown as the provider\'s `lastError`',
    payload: { error: "the server's or provider's answer, at most 500 characters" },
  },
  'instance.smtp.provider.delivery.recovered': { emittedBy: 'the outbox worker: the first accepted message after a failure (clears `lastError`)', payload: {} },
  'instance.smtp.provider.removed': { emittedBy: 'DeleteSMTPProvider (after `…deactivated` in the same append when it was active)', payload: {} },
});

export const smtpProviderActivationEvents = defineEvents<SmtpProviderActivationEvent>()(
  'smtp_provider_activation',
  'smtp_provider_activation (one per instance, id = instance id)',
  {
    'instance.smtp.provider.activated': {
      emittedBy: 'ActivateSMTPProvider (not when already active)',
      payload: { id: 'the provider now active', previousId: "the one it replaced ('' when none)" },
    },
    'instance.smtp.provider.deactivated': {
      emittedBy: 'DeactivateSMTPProvider of the active provider; DeleteSMTPProvider of the active provider',
      payload: { id: 'the provider no longer active' },
    },
  },
);

export const smsProviderEvents = defineEvents<SmsProviderEvent>()('sms_provider', 'sms_provider (instance)', {
  'instance.sms.provider.added': {
    emittedBy: 'CreateSMSProvider',
    payload: {
      description: 'shown name',
      providerType: "`generic` or `twilio` (the other type's fields are '')",
      url: 'generic: the webhook URL',
      signingKey: 'generic: HMAC-SHA256 key, sealed',
      accountSid: 'twilio: the account',
      authToken: 'twilio: sealed',
      senderNumber: 'the sending number',
      baseUrl: "twilio: the API base ('' = https://api.twilio.com)",
    },
  },
  'instance.sms.provider.changed': {
    emittedBy: 'PatchSMSProvider (only the changed fields; `regenerateSigningKey` records the new sealed key)',
    payload: {
      description: 'when changed',
      providerType: 'not recorded in practice: a patch changing the type is refused',
      url: 'when changed',
      signingKey: 'when changed, sealed',
      accountSid: 'when changed',
      authToken: 'when changed, sealed',
      senderNumber: 'when changed',
      baseUrl: 'when changed',
    },
  },
  'instance.sms.provider.delivery.failed': {
    emittedBy: 'the outbox worker: a message sent through the provider failed (not repeated for the same error within a minute); shown as the provider\'s `lastError`',
    payload: { error: "the server's or provider's answer, at most 500 characters" },
  },
  'instance.sms.provider.delivery.recovered': { emittedBy: 'the outbox worker: the first accepted message after a failure (clears `lastError`)', payload: {} },
  'instance.sms.provider.removed': { emittedBy: 'DeleteSMSProvider (after `…deactivated` when it was active)', payload: {} },
});

export const smsProviderActivationEvents = defineEvents<SmsProviderActivationEvent>()(
  'sms_provider_activation',
  'sms_provider_activation (one per instance, id = instance id)',
  {
    'instance.sms.provider.activated': {
      emittedBy: 'ActivateSMSProvider (not when already active)',
      payload: { id: 'the provider now active', previousId: "the one it replaced ('' when none)" },
    },
    'instance.sms.provider.deactivated': {
      emittedBy: 'DeactivateSMSProvider of the active provider; DeleteSMSProvider of the active provider',
      payload: { id: 'the provider no longer active' },
    },
  },
);

/** Every aggregate's catalogue, in the order of docs/events.md. */
export const outboxMessageEvents = defineEvents<OutboxMessageEvent>()('message', 'message (outbox; owner: the organization of the fact that caused it)', {
  'message.queued': {
    emittedBy: 'the fact\'s command, in the same append (`user.human.password.code.added`, `user.human.email.code.added`, `user.human.phone.code.added`)',
    payload: {
      channel: '`mail` or `sms`',
      to: 'the email address or phone number',
      subject: 'the subject (mail)',
      text: 'the text, sealed with the master key (it carries a code)',
      purpose: 'what it is for, e.g. `password.reset`',
    },
  },
  'message.attempt.failed': {
    emittedBy: 'the outbox worker: an attempt failed and another follows',
    payload: { attempt: 'the attempt number', error: 'the answer or error', nextAttemptAt: 'epoch ms of the next attempt (backoff)', providerId: "the provider ('' for the node's default SMTP server)" },
  },
  'message.delivered': {
    emittedBy: 'the outbox worker, after the provider accepted the message (the row is removed: never sent again)',
    payload: { attempt: 'the attempt number', providerId: "the provider ('' for the default SMTP server)", answer: "the server's reply" },
  },
  'message.abandoned': {
    emittedBy: 'the outbox worker: the last attempt (TESSERA_OUTBOX_MAX_ATTEMPTS) failed',
    payload: { attempts: 'attempts made', error: 'the last error' },
  },
});

export const EVENT_CATALOGUE = [
  instanceEvents,
  outboxMessageEvents,
  instanceSettingsEvents,
  webKeyEvents,
  membershipEvents,
  orgEvents,
  userEvents,
  userSettingsEvents,
  orgLockoutEvents,
  loginSettingsEvents,
  userSchemaEvents,
  projectEvents,
  projectGrantEvents,
  userGrantEvents,
  applicationEvents,
  sessionEvents,
  targetEvents,
  executionEvents,
  idpEvents,
  idpPolicyEvents,
  languageSettingsEvents,
  textSettingsEvents,
  brandingSettingsEvents,
  smtpProviderEvents,
  smtpProviderActivationEvents,
  smsProviderEvents,
  smsProviderActivationEvents,
] as const;

/** Any event `decide` may emit: a member of a catalogued union, with its stream type. */
export type DomainEvent = EmittedOf<(typeof EVENT_CATALOGUE)[number]>;
