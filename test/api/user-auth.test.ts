/**
 * The user helpers other modules use (login UI, OIDC, sessions) against a real store:
 * findUserByLoginName, verifyUserPassword with lockout accounting, authenticateMachineSecret.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  addHumanUser,
  addMachineUser,
  changeUserState,
  createIdGenerator,
  createOrg,
  removeOrg,
  setDefaultOrg,
  setMachineSecret,
  setUserSettings,
  systemClock,
  UNIQUE_SCOPES,
  userKind,
  type StoreAdapter,
} from '../../actors/index.js';
import { tokenDigest } from '../../src/crypto/token-digest.js';
import { authenticateMachineSecret, findUserByLoginName, loginNamesOf, verifyUserPassword } from '../../src/query/user-auth.js';
import { hashPassword } from '../../src/crypto/password.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { suiteTempDir } from '../temp-dirs.js';

const I = 'i1';
const dir = suiteTempDir('tessera-user-auth-');
let store: StoreAdapter;
let actors: ActorSystem;
const system = { creator: '' };
const org = (orgId: string) => ({ kind: 'org', instanceId: I, orgId }) as const;

async function addHuman(userId: string, orgId: string, username: string, password: string): Promise<void> {
  const passwordHash = password === '' ? '' : await hashPassword(password);
  await actors.ask(
    org(orgId),
    addHumanUser,
    { userId, orgId, username, givenName: 'G', familyName: 'F', nickname: '', preferredLanguage: '', gender: 'unspecified', email: { address: `${username}@example.com`, verified: false }, passwordHash, passwordChangeRequired: false },
    system,
  );
}

beforeAll(async () => {
  store = openLmdbStore({ path: dir });
  actors = new ActorSystem({
    store,
    clock: systemClock,
    ids: createIdGenerator(() => Date.now()),
    sealer: createSecretSealer(randomBytes(32)),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    uniqueScopes: UNIQUE_SCOPES,
  });
  await actors.ask(org('o1'), createOrg, { orgId: 'o1', name: 'Home', instanceDomain: 'example.com' }, system);
  await actors.ask(org('o2'), createOrg, { orgId: 'o2', name: 'Away', instanceDomain: 'example.com' }, system);
  await actors.ask({ kind: 'instance', instanceId: I }, setDefaultOrg, { orgId: 'o1' }, system);
  await addHuman('h1', 'o1', 'alice', 'Secr3tPassword');
  await addHuman('h2', 'o2', 'alice', 'Other1Password');
  await addHuman('h3', 'o2', 'nopass', '');
  await actors.ask(org('o2'), addMachineUser, { userId: 'm1', orgId: 'o2', username: 'svc', name: 'Svc', description: '', accessTokenType: 'bearer' }, system);
});
afterAll(async () => {
  await actors.stop();
  await store.close();
});

describe('login names', () => {
  it('are username@primary domain', () => {
    expect(loginNamesOf('alice', { name: 'Home', primaryDomain: 'home.example.com', state: 'active' })).toEqual({
      loginNames: ['alice@home.example.com'],
      preferredLoginName: 'alice@home.example.com',
    });
  });

  it('find users by login name, by username in an org, and in the default org', async () => {
    expect((await findUserByLoginName(actors, I, 'alice@away.example.com'))?.id).toBe('h2');
    expect((await findUserByLoginName(actors, I, 'ALICE@HOME.example.com'))?.id).toBe('h1');
    expect((await findUserByLoginName(actors, I, 'alice', { orgId: 'o2' }))?.id).toBe('h2');
    expect((await findUserByLoginName(actors, I, 'alice'))?.id).toBe('h1'); // default org
    expect(await findUserByLoginName(actors, I, 'alice@unknown.example.com')).toBeUndefined();
    expect(await findUserByLoginName(actors, I, 'svc')).toBeUndefined(); // not in the default org, not instance-wide
  });

  it('find instance-wide usernames without a domain', async () => {
    await actors.ask({ kind: 'instance', instanceId: I }, setUserSettings, { usernameUniquePerInstance: true }, system);
    await actors.ask(org('o2'), addMachineUser, { userId: 'm2', orgId: 'o2', username: 'global-svc', name: 'G', description: '', accessTokenType: 'jwt' }, system);
    expect((await findUserByLoginName(actors, I, 'Global-Svc'))?.id).toBe('m2');
    await actors.ask({ kind: 'instance', instanceId: I }, setUserSettings, { usernameUniquePerInstance: false }, system);
  });
});

describe('verifyUserPassword', () => {
  it('verifies, counts failures, locks at the maximum and resets on success', async () => {
    await actors.ask({ kind: 'instance', instanceId: I }, setUserSettings, { maxPasswordAttempts: 2 }, system);
    expect(await verifyUserPassword(actors, I, 'h2', 'wrong')).toMatchObject({ outcome: 'invalid', failedAttempts: 1, lockedNow: false });
    expect(await verifyUserPassword(actors, I, 'h2', 'Other1Password')).toMatchObject({ outcome: 'valid', changeRequired: false });
    expect(await verifyUserPassword(actors, I, 'h2', 'wrong')).toMatchObject({ failedAttempts: 1 });
    expect(await verifyUserPassword(actors, I, 'h2', 'wrong')).toMatchObject({ outcome: 'invalid', failedAttempts: 2, lockedNow: true });
    expect(await verifyUserPassword(actors, I, 'h2', 'Other1Password')).toMatchObject({ outcome: 'locked' });
    await actors.ask(org('o2'), changeUserState, { orgId: 'o2', userId: 'h2', action: 'unlock' }, system);
    expect(await verifyUserPassword(actors, I, 'h2', 'Other1Password')).toMatchObject({ outcome: 'valid' });
    expect((await actors.readRecord(I, userKind, 'h2'))?.state).toMatchObject({ failedPasswordAttempts: 0 });
  });

  it('refuses users without a password, machines and unknown ids', async () => {
    expect((await verifyUserPassword(actors, I, 'h3', '')).outcome).toBe('no_password');
    expect((await verifyUserPassword(actors, I, 'm1', 'x')).outcome).toBe('not_human');
    expect((await verifyUserPassword(actors, I, 'nobody', 'x')).outcome).toBe('not_found');
    expect((await verifyUserPassword(actors, I, 'h1', 'wrong', { record: false })).failedAttempts).toBe(0);
  });
});

describe('authenticateMachineSecret', () => {
  it('accepts the current secret of an active machine user, by login name', async () => {
    await actors.ask(org('o2'), setMachineSecret, { orgId: 'o2', userId: 'm1', digest: tokenDigest('s3cret') }, system);
    expect((await authenticateMachineSecret(actors, I, 'svc@away.example.com', 's3cret'))?.id).toBe('m1');
    expect(await authenticateMachineSecret(actors, I, 'svc@away.example.com', 'wrong')).toBeUndefined();
    expect(await authenticateMachineSecret(actors, I, 'alice@away.example.com', 's3cret')).toBeUndefined();
    await actors.ask(org('o2'), changeUserState, { orgId: 'o2', userId: 'm1', action: 'deactivate' }, system);
    expect(await authenticateMachineSecret(actors, I, 'svc@away.example.com', 's3cret')).toBeUndefined();
  });

  it('finds nobody in a removed organization', async () => {
    await actors.ask(org('o3'), createOrg, { orgId: 'o3', name: 'Gone', instanceDomain: 'example.com' }, system);
    await addHuman('h9', 'o3', 'ghost', 'Secr3tPassword');
    expect((await findUserByLoginName(actors, I, 'ghost@gone.example.com'))?.id).toBe('h9');
    await actors.ask(org('o3'), removeOrg, { orgId: 'o3' }, system);
    expect(await findUserByLoginName(actors, I, 'ghost@gone.example.com')).toBeUndefined();
  });
});
