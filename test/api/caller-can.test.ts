/**
 * callerCan against a real store: instance, org and project memberships, and the read-time
 * tombstones (a removed user or organization grants nothing).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  addMachineUser,
  addMembership,
  createIdGenerator,
  createOrg,
  createProject,
  removeOrg,
  removeUser,
  systemClock,
  UNIQUE_SCOPES,
  type StoreAdapter,
} from '../../actors/index.js';
import { callerCan, type Caller } from '../../src/query/auth.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { suiteTempDir } from '../temp-dirs.js';

const I = 'i1';
const dir = suiteTempDir('tessera-caller-can-');
let store: StoreAdapter;
let actors: ActorSystem;

const system = { creator: '' };
const instance = { kind: 'instance', instanceId: I } as const;
const org = (orgId: string) => ({ kind: 'org', instanceId: I, orgId }) as const;

async function addUser(userId: string, orgId: string): Promise<Caller> {
  await actors.ask(org(orgId), addMachineUser, { userId, orgId, username: userId, name: userId, description: '', accessTokenType: 'bearer' }, system);
  return { userId, orgId };
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
  for (const orgId of ['home', 'a', 'b']) await actors.ask(org(orgId), createOrg, { orgId, name: orgId, instanceDomain: 'example.com' }, system);
  await actors.ask(org('a'), createProject, { projectId: 'p1', orgId: 'a', name: 'P1', projectRoleAssertion: false, projectRoleCheck: false, hasProjectCheck: false }, system);
});
afterAll(async () => {
  await actors.stop();
  await store.close();
});

describe('callerCan', () => {
  it('counts instance roles anywhere, org roles in their org, project roles in their project', async () => {
    const admin = await addUser('admin', 'home');
    await actors.ask(instance, addMembership, { contextType: 'instance', contextId: I, userId: 'admin', roles: ['IAM_OWNER_VIEWER'] }, system);
    expect(await callerCan(actors, I, admin, 'org.read', 'b')).toBe(true);
    expect(await callerCan(actors, I, admin, 'org.write', 'b')).toBe(false);

    const owner = await addUser('owner', 'home');
    await actors.ask(instance, addMembership, { contextType: 'org', contextId: 'a', userId: 'owner', roles: ['ORG_OWNER'] }, system);
    expect(await callerCan(actors, I, owner, 'org.write', 'a')).toBe(true);
    expect(await callerCan(actors, I, owner, 'org.write', 'b')).toBe(false);
    expect(await callerCan(actors, I, owner, 'org.write')).toBe(false);

    const lead = await addUser('lead', 'home');
    await actors.ask(instance, addMembership, { contextType: 'project', contextId: 'p1', userId: 'lead', roles: ['PROJECT_OWNER'], ownerOrgId: 'a' }, system);
    expect(await callerCan(actors, I, lead, 'project.write', 'a', 'p1')).toBe(true);
    expect(await callerCan(actors, I, lead, 'project.write', 'a', 'p2')).toBe(false);
    expect(await callerCan(actors, I, lead, 'project.write', 'a')).toBe(false); // the old signature: no project named
  });

  it('ignores memberships of a removed user, of a user whose org was removed, and in a removed org', async () => {
    const gone = await addUser('gone', 'home');
    await actors.ask(instance, addMembership, { contextType: 'instance', contextId: I, userId: 'gone', roles: ['IAM_OWNER'] }, system);
    expect(await callerCan(actors, I, gone, 'iam.write')).toBe(true);
    await actors.ask(org('home'), removeUser, { orgId: 'home', userId: 'gone' }, system);
    expect(await callerCan(actors, I, gone, 'iam.write')).toBe(false);

    const orphan = await addUser('orphan', 'b');
    await actors.ask(instance, addMembership, { contextType: 'instance', contextId: I, userId: 'orphan', roles: ['IAM_OWNER'] }, system);
    const member = await addUser('member', 'home');
    await actors.ask(instance, addMembership, { contextType: 'org', contextId: 'a', userId: 'member', roles: ['ORG_OWNER'] }, system);
    const lead = await addUser('lead2', 'home');
    await actors.ask(instance, addMembership, { contextType: 'project', contextId: 'p1', userId: 'lead2', roles: ['PROJECT_OWNER'], ownerOrgId: 'a' }, system);
    expect(await callerCan(actors, I, orphan, 'iam.write')).toBe(true);
    expect(await callerCan(actors, I, member, 'org.read', 'a')).toBe(true);

    await actors.ask(org('b'), removeOrg, { orgId: 'b' }, system);
    await actors.ask(org('a'), removeOrg, { orgId: 'a' }, system);
    expect(await callerCan(actors, I, orphan, 'iam.write')).toBe(false);
    expect(await callerCan(actors, I, member, 'org.read', 'a')).toBe(false);
    expect(await callerCan(actors, I, lead, 'project.read', 'a', 'p1')).toBe(false);
  });
});
