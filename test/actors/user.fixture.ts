/** The organization `o1` ("Acme") and builders of its user `u1`, for decider tests of user and session commands. */
import { orgKind } from '../../actors/organization/org.js';
import { userKind, type HumanUser, type MachineUser, type User } from '../../actors/organization/user.js';
import { given, NOW, record } from './decide.fixture.js';

export const owner = { type: 'org', id: 'o1' } as const;
export const org = { kind: orgKind, record: record('o1', { name: 'Acme', primaryDomain: 'acme.localhost', state: 'active' as const }, owner) };

/** Alice, an active human user with a verified email and the password hash `$argon2id$current`. */
export const humanUser = (over: Partial<HumanUser> = {}): HumanUser => ({
  type: 'human',
  orgId: 'o1',
  username: 'alice',
  state: 'active',
  metadata: [],
  usernameInstanceWide: false,
  profile: { givenName: 'Alice', familyName: 'Smith', displayName: 'Alice Smith', nickname: '', preferredLanguage: 'en', gender: 'female' },
  email: { address: 'a@example.com', verified: true },
  phone: { number: '', verified: false },
  passwordHash: '$argon2id$current',
  passwordChangeRequired: false,
  passwordChangedAt: 1,
  failedPasswordAttempts: 0,
  ...over,
});

/** Bot, an active machine user with one personal access token (t1) that expires after NOW. */
export const machineUser = (over: Partial<MachineUser> = {}): MachineUser => ({
  type: 'machine',
  orgId: 'o1',
  username: 'bot',
  state: 'active',
  metadata: [],
  usernameInstanceWide: false,
  name: 'Bot',
  description: '',
  accessTokenType: 'bearer',
  tokens: [{ id: 't1', digest: 'd1', expiresAt: NOW + 1000, createdAt: NOW }],
  keys: [],
  secretDigest: '',
  ...over,
});

/** The organization and `user` as u1, plus any other aggregates. */
export const withUser = (user: User, ...more: Parameters<typeof given>[0]) => given([org, { kind: userKind, record: record('u1', user, owner) }, ...more]);
