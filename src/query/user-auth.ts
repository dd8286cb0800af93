/**
 * User lookups and credential checks for the modules that authenticate users (login UI,
 * OIDC grants, sessions) and for the users API itself: login names, finding a user by login
 * name, password verification with lockout accounting, machine client secrets.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  type ActorSystem,
  type AggregateRecord,
  type UniqueKey,
  instanceSettingsKind,
  instanceUsernameKey,
  type MachineUser,
  type Org,
  ORG_DOMAIN_SCOPE,
  orgDomains,
  orgKind,
  recordPasswordCheck,
  type User,
  USERNAME_INSTANCE_SCOPE,
  USERNAME_SCOPE,
  userKind,
  knownRecord,
  usernameKey,
  userSettingsKind,
  userSettingsOf,
  type UserSettings,
} from '../../actors/index.js';
import { hashPassword, verifyPassword } from '../crypto/password.js';
import { tokenDigest } from '../crypto/token-digest.js';

export interface LoginNames {
  /** `<username>@<domain>` for the primary and every other verified domain of the organization. */
  readonly loginNames: readonly string[];
  /** `<username>@<primary domain>`. */
  readonly preferredLoginName: string;
}

/** Login names of a username in an organization (read the org row at read time: domains change). */
export function loginNamesOf(username: string, org: Org | undefined): LoginNames {
  if (org === undefined) return { loginNames: [], preferredLoginName: username };
  const preferredLoginName = `${username}@${org.primaryDomain}`;
  const others = orgDomains(org)
    .filter((d) => d.isVerified && d.domain !== org.primaryDomain)
    .map((d) => `${username}@${d.domain}`);
  return { loginNames: [preferredLoginName, ...others], preferredLoginName };
}

/** The instance's user policies (defaults when never set). */
export async function readUserSettings(actors: ActorSystem, instanceId: string): Promise<UserSettings> {
  return userSettingsOf(await actors.readRecord(instanceId, userSettingsKind, instanceId));
}

/**
 * Finds a user by login name: `username@<verified org domain>`, a plain username within
 * `options.orgId`, a username claimed instance-wide, and finally a plain username in the
 * instance's default organization. Users of removed organizations are never found. The unique
 * values these look up that depend on no other read are asked together (one statement on
 * PostgreSQL); the first candidate in that order that names a user of a live organization wins.
 */
export async function findUserByLoginName(
  actors: ActorSystem,
  instanceId: string,
  loginName: string,
  options: { readonly orgId?: string } = {},
): Promise<AggregateRecord<User> | undefined> {
  const at = loginName.lastIndexOf('@');
  const domain = at > 0 && at < loginName.length - 1 ? loginName.slice(at + 1).toLowerCase() : undefined;
  const defaultOrgId = options.orgId === undefined ? (await actors.readRecord(instanceId, instanceSettingsKind, instanceId))?.state.defaultOrgId : undefined;
  const keys: UniqueKey[] = [];
  if (options.orgId !== undefined) keys.push([USERNAME_SCOPE, usernameKey(options.orgId, loginName)]);
  if (domain !== undefined) keys.push([ORG_DOMAIN_SCOPE, domain]);
  keys.push([USERNAME_INSTANCE_SCOPE, instanceUsernameKey(loginName)]);
  if (defaultOrgId) keys.push([USERNAME_SCOPE, usernameKey(defaultOrgId, loginName)]);
  const holders = await actors.findUniques(instanceId, keys);
  const holderOf = (scope: string, value: string) => holders[keys.findIndex(([s, v]) => s === scope && v === value)];

  const candidates: (() => Promise<string | undefined>)[] = [];
  if (options.orgId !== undefined) candidates.push(async () => holderOf(USERNAME_SCOPE, usernameKey(options.orgId!, loginName)));
  if (domain !== undefined) {
    candidates.push(async () => {
      const orgId = holderOf(ORG_DOMAIN_SCOPE, domain);
      const org = orgId === undefined ? undefined : await actors.readRecord(instanceId, orgKind, orgId);
      const verified = org !== undefined && (org.state.primaryDomain === domain || orgDomains(org.state).some((d) => d.domain === domain && d.isVerified));
      return verified ? actors.findUnique(instanceId, USERNAME_SCOPE, usernameKey(org.id, loginName.slice(0, at))) : undefined;
    });
  }
  candidates.push(async () => holderOf(USERNAME_INSTANCE_SCOPE, instanceUsernameKey(loginName)));
  if (defaultOrgId) candidates.push(async () => holderOf(USERNAME_SCOPE, usernameKey(defaultOrgId, loginName)));
  for (const candidate of candidates) {
    const userId = await candidate();
    const user = userId === undefined ? undefined : await actors.readRecord(instanceId, userKind, userId);
    if (user !== undefined && (await actors.readRecord(instanceId, orgKind, user.state.orgId)) !== undefined) return user;
  }
  return undefined;
}

export type PasswordCheckOutcome = 'valid' | 'invalid' | 'no_password' | 'locked' | 'inactive' | 'not_human' | 'not_found' | 'unsupported_hash';

export interface PasswordCheckResult {
  readonly outcome: PasswordCheckOutcome;
  /** On `valid`: the user must set a new password now. */
  readonly changeRequired: boolean;
  /** On `valid`: the stored hash was older than the current parameters (recorded checks rehash it). */
  readonly needsRehash: boolean;
  /** On `valid`: the user's password hash after the check (the new one when it was rehashed). */
  readonly passwordHash?: string;
  /** On `invalid`: this failure locked the user (instance `maxPasswordAttempts`). */
  readonly lockedNow: boolean;
  readonly failedAttempts: number;
}

/**
 * Verifies a human user's password and records the outcome on the user (success resets the
 * failure counter; failures count and lock at the instance's `maxPasswordAttempts`). Locked,
 * inactive and password-less users are refused without verifying or counting. A good password
 * under an old hash is rehashed to argon2id with the recorded success.
 * `record: false` checks without recording (e.g. a re-check inside a session).
 */
export async function verifyUserPassword(
  actors: ActorSystem,
  instanceId: string,
  userId: string,
  password: string,
  options: { readonly creator?: string; readonly record?: boolean } = {},
): Promise<PasswordCheckResult> {
  const result = (outcome: PasswordCheckOutcome, extra: Partial<PasswordCheckResult> = {}): PasswordCheckResult => ({
    outcome,
    changeRequired: false,
    needsRehash: false,
    lockedNow: false,
    failedAttempts: 0,
    ...extra,
  });
  const user = await actors.readRecord(instanceId, userKind, userId);
  if (user === undefined) return result('not_found');
  const human = user.state;
  if (human.type !== 'human') return result('not_human');
  if (human.state === 'locked') return result('locked', { failedAttempts: human.failedPasswordAttempts });
  if (human.state === 'inactive') return result('inactive');
  if (human.passwordHash === '') return result('no_password');
  const verification = await verifyPassword(human.passwordHash, password);
  if (!verification.supported) return result('unsupported_hash');
  if (options.record === false) {
    return verification.valid
      ? result('valid', { changeRequired: human.passwordChangeRequired, needsRehash: verification.needsRehash })
      : result('invalid', { failedAttempts: human.failedPasswordAttempts });
  }
  // A good password under an old hash (bcrypt import, older argon2 parameters) moves to argon2id now.
  const rehash = verification.valid && verification.needsRehash ? await hashPassword(password) : undefined;
  const recorded = await actors.ask(
    { kind: 'org', instanceId, orgId: human.orgId },
    recordPasswordCheck,
    { orgId: human.orgId, userId, succeeded: verification.valid, checkedHash: human.passwordHash, ...(rehash === undefined ? {} : { rehash }) },
    { creator: options.creator ?? userId, known: [knownRecord(userKind, user)] },
  );
  if (!verification.valid) return result('invalid', { lockedNow: recorded.locked, failedAttempts: recorded.failedAttempts });
  return result('valid', { changeRequired: human.passwordChangeRequired, needsRehash: verification.needsRehash, passwordHash: rehash ?? human.passwordHash });
}

/**
 * client_credentials for machine users: `clientId` is the username (or login name), `secret`
 * the generated client secret. Returns the active machine user, or undefined on any mismatch.
 */
export async function authenticateMachineSecret(
  actors: ActorSystem,
  instanceId: string,
  clientId: string,
  secret: string,
): Promise<AggregateRecord<MachineUser> | undefined> {
  const user = await findUserByLoginName(actors, instanceId, clientId);
  if (user === undefined || user.state.type !== 'machine' || user.state.state !== 'active' || user.state.secretDigest === '') return undefined;
  const expected = Buffer.from(user.state.secretDigest);
  const given = Buffer.from(tokenDigest(secret));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  return user as AggregateRecord<MachineUser>;
}
