/**
 * The session helpers the login UI and OIDC use, against a real store: createLoginSession,
 * addPasswordCheck, findSessionByToken, listSessionsForUserAgent, terminateSession.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  addHumanUser,
  AppError,
  changeUserState,
  createIdGenerator,
  createManualClock,
  createOrg,
  type ManualClock,
  setDefaultOrg,
  UNIQUE_SCOPES,
  type StoreAdapter,
} from '../../actors/index.js';
import {
  addPasswordCheck,
  createLoginSession,
  findSessionByToken,
  listSessionsForUserAgent,
  terminateSession,
} from '../../src/query/sessions.js';
import { hashPassword } from '../../src/crypto/password.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { suiteTempDir } from '../temp-dirs.js';

const I = 'i1';
const PASSWORD = 'Secr3tPassword';
const dir = suiteTempDir('tessera-sessions-');
let store: StoreAdapter;
let actors: ActorSystem;
let clock: ManualClock;
const system = { creator: '' };
const org = { kind: 'org', instanceId: I, orgId: 'o1' } as const;

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (e) {
    return e instanceof AppError ? e.code : 'not-an-app-error';
  }
}

beforeAll(async () => {
  store = openLmdbStore({ path: dir });
  clock = createManualClock(Date.now());
  actors = new ActorSystem({
    store,
    clock,
    ids: createIdGenerator(() => clock.now()),
    sealer: createSecretSealer(randomBytes(32)),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    uniqueScopes: UNIQUE_SCOPES,
  });
  await actors.ask(org, createOrg, { orgId: 'o1', name: 'Home', instanceDomain: 'example.com' }, system);
  await actors.ask({ kind: 'instance', instanceId: I }, setDefaultOrg, { orgId: 'o1' }, system);
  await actors.ask(
    org,
    addHumanUser,
    {
      userId: 'h1',
      orgId: 'o1',
      username: 'alice',
      givenName: 'G',
      familyName: 'F',
      nickname: '',
      preferredLanguage: '',
      gender: 'unspecified',
      email: { address: 'alice@example.com', verified: false },
      passwordHash: await hashPassword(PASSWORD),
      passwordChangeRequired: false,
    },
    system,
  );
});
afterAll(async () => {
  await actors.stop();
  await store.close();
});

describe('login sessions', () => {
  it('check the user first, the password next, and are found by their token', async () => {
    const created = await createLoginSession(actors, I, { loginName: 'alice' }, {}, { userAgent: { userAgent: 'ua', ip: '1.2.3.4' } });
    expect(created.session?.state).toMatchObject({ userId: 'h1', orgId: 'o1', passwordCheckedAt: 0 });
    expect(created.details.resourceOwner).toEqual({ type: 'org', id: 'o1' });
    expect(await codeOf(addPasswordCheck(actors, I, created.sessionId, 'wrong'))).toBe('session.password_invalid');
    const checked = await addPasswordCheck(actors, I, created.sessionId, PASSWORD);
    expect(checked.session?.state.passwordCheckedAt).toBeGreaterThan(0);
    const found = await findSessionByToken(actors, I, created.sessionToken);
    expect(found?.id).toBe(created.sessionId);
    expect(found?.state.userAgent).toEqual({ userAgent: 'ua', ip: '1.2.3.4' });
    expect(await findSessionByToken(actors, I, 'not-a-token')).toBeUndefined();
    expect(await findSessionByToken(actors, I, '')).toBeUndefined();
  });

  it('list the live sessions of a user agent and end when terminated or expired', async () => {
    const a = await createLoginSession(actors, I, { userId: 'h1' }, { password: PASSWORD });
    const b = await createLoginSession(actors, I, { userId: 'h1' }, {}, { lifetimeMs: 10_000 });
    const listed = await listSessionsForUserAgent(actors, I, [a.sessionToken, b.sessionToken, a.sessionToken, 'junk']);
    expect(listed.map((s) => s.id).sort()).toEqual([a.sessionId, b.sessionId].sort());

    await terminateSession(actors, I, a.sessionId);
    expect(await findSessionByToken(actors, I, a.sessionToken)).toBeUndefined();
    expect(await codeOf(terminateSession(actors, I, a.sessionId))).toBe('session.not_found');

    clock.advance(10_000);
    expect(await findSessionByToken(actors, I, b.sessionToken)).toBeUndefined();
    expect(await codeOf(addPasswordCheck(actors, I, b.sessionId, PASSWORD))).toBe('session.not_found');
    expect(await listSessionsForUserAgent(actors, I, [a.sessionToken, b.sessionToken])).toEqual([]);
  });

  it('are not usable while the user is locked', async () => {
    const s = await createLoginSession(actors, I, { userId: 'h1' }, {});
    await actors.ask(org, changeUserState, { orgId: 'o1', userId: 'h1', action: 'lock' }, system);
    try {
      expect(await findSessionByToken(actors, I, s.sessionToken)).toBeUndefined();
      expect(await codeOf(createLoginSession(actors, I, { userId: 'h1' }, {}))).toBe('user.locked');
      expect(await codeOf(createLoginSession(actors, I, { userId: 'h1' }, { password: PASSWORD }))).toBe('user.locked');
      expect(await codeOf(createLoginSession(actors, I, { loginName: 'nobody' }, {}))).toBe('user.not_found');
    } finally {
      await actors.ask(org, changeUserState, { orgId: 'o1', userId: 'h1', action: 'unlock' }, system);
    }
    expect((await findSessionByToken(actors, I, s.sessionToken))?.id).toBe(s.sessionId);
  });
});
