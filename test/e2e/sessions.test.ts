/**
 * PlatformSessions over JSON/HTTP (and one call over gRPC) against a started node: create with
 * login name + password → get → patch (with the session token) → search → delete; lockout
 * after failed passwords; PAT checks for machine users; bad input; permissions.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlatformSessions } from '../../src/gen/platform/resources/session/v3alpha/session_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser, type SeedSetup } from './seed.fixture.js';

const BASE = '/resources/v3alpha/sessions';
const USERS = '/resources/v3alpha/users';
const PASSWORD = 'Secr3tPassword';

let node: TestNode;
let call: ReturnType<typeof api>;
let setup: SeedSetup;
let aliceId: string;
let botId: string;
let botPat: string;

async function createHuman(username: string): Promise<string> {
  const created = await call('POST', USERS, { human: { username, profile: { givenName: 'A', familyName: 'B' }, email: { address: `${username}@example.com` }, password: PASSWORD } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.details.id;
}

const withPassword = (loginName: string, password = PASSWORD, extra: Record<string, unknown> = {}) => ({
  checks: { user: { loginName }, password: { password } },
  ...extra,
});

beforeAll(async () => {
  node = await startTestNode({ testClock: true });
  call = api(node);
  setup = await readSetup(node);
  aliceId = await createHuman('sess-alice');
  const bot = await call('POST', USERS, { machine: { username: 'sess-bot', name: 'Session bot' } });
  botId = bot.body.details.id;
  botPat = (await call('POST', `${USERS}/${botId}/tokens`, {})).body.token;
});
// A test that moved the node's clock puts it back for the next one.
afterEach(() => node.resetClock());
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('sessions', () => {
  it('creates with login name + password, reads, patches with the session token, and deletes', async () => {
    const created = await call('POST', BASE, withPassword('sess-alice@default.localhost', PASSWORD, { metadata: { app: 'test' } }), { 'user-agent': 'vitest-agent' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.details.id;
    const token: string = created.body.sessionToken;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_ORG', id: setup.orgId });
    expect(created.body.factors.user).toMatchObject({ id: aliceId, loginName: 'sess-alice@default.localhost', organizationId: setup.orgId });
    expect(created.body.factors.user.verifiedAt).toMatch(/^\d{4}-/);
    expect(created.body.factors.password.verifiedAt).toMatch(/^\d{4}-/);
    expect(created.body.factors.token).toBeUndefined();

    const got = await call('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body)).not.toContain(token);
    expect(got.body.session).toMatchObject({
      details: { id, sequence: created.body.details.sequence },
      state: 'SESSION_STATE_ACTIVE',
      metadata: { app: 'test' },
      userAgent: { description: 'vitest-agent', ip: '127.0.0.1' },
      amr: ['pwd'],
      factors: { user: { id: aliceId } },
    });
    const lifetimeMs = Date.parse(got.body.session.expirationDate) - Date.parse(got.body.session.creationDate);
    expect(lifetimeMs).toBeGreaterThan(23 * 3_600_000);

    // a caller without any role may patch with the session token, not without it
    const nobody = api(node, (await seedMachineUser(node, { username: 'sess-nobody' })).token);
    expect((await nobody('PATCH', `${BASE}/${id}`, { metadata: { app: 'x' } })).status).toBe(403);
    expect((await nobody('PATCH', `${BASE}/${id}`, { sessionToken: 'wrong', metadata: { app: 'x' } })).status).toBe(403);
    const patched = await nobody('PATCH', `${BASE}/${id}`, { sessionToken: token, checks: { password: { password: PASSWORD } }, lifetime: '7200s', metadata: { app: '', more: '1' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    const after = (await call('GET', `${BASE}/${id}`)).body.session;
    expect(after.metadata).toEqual({ more: '1' });
    expect(Date.parse(after.factors.password.verifiedAt)).toBeGreaterThanOrEqual(Date.parse(got.body.session.factors.password.verifiedAt));
    expect(Date.parse(after.expirationDate) - Date.now()).toBeLessThan(7_300_000);
    const noop = await call('PATCH', `${BASE}/${id}`, { metadata: { more: '1' } });
    expect(noop.status).toBe(200);
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('PATCH', `${BASE}/${id}`, {})).body.details.sequence).toBe(patched.body.details.sequence);

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    const gone = await call('GET', `${BASE}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.details[0].id).toBe('session.not_found');
    expect((await call('PATCH', `${BASE}/${id}`, { sessionToken: token })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
  });

  it('adds the password to a session that only checked the user', async () => {
    const created = await call('POST', BASE, { checks: { user: { userId: aliceId } } });
    expect(created.status).toBe(201);
    expect(created.body.factors.password).toBeUndefined();
    const id = created.body.details.id;
    expect((await call('GET', `${BASE}/${id}`)).body.session.amr).toBeUndefined();
    const wrong = await call('PATCH', `${BASE}/${id}`, { checks: { password: { password: 'nope' } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details[0].id).toBe('session.password_invalid');
    const patched = await call('PATCH', `${BASE}/${id}`, { sessionToken: created.body.sessionToken, checks: { password: { password: PASSWORD } } });
    expect(patched.body.factors.password.verifiedAt).toMatch(/^\d{4}-/);
    expect((await call('GET', `${BASE}/${id}`)).body.session.amr).toEqual(['pwd']);
  });

  it('counts wrong passwords and locks the user at the instance limit', async () => {
    const userId = await createHuman('sess-lock');
    expect((await call('PATCH', '/settings/v3alpha/users', { maxPasswordAttempts: 3 })).status).toBe(200);
    try {
      for (let attempt = 1; attempt <= 3; attempt++) {
        const wrong = await call('POST', BASE, withPassword('sess-lock', 'Wrong1Password'));
        expect(wrong.status).toBe(400);
        expect(wrong.body.details[0].id).toBe('session.password_invalid');
        const user = (await call('GET', `${USERS}/${userId}`)).body.user;
        expect(user.human.failedPasswordAttempts ?? 0).toBe(attempt === 3 ? 3 : attempt);
      }
      expect((await call('GET', `${USERS}/${userId}`)).body.user.state).toBe('USER_STATE_LOCKED');
      const locked = await call('POST', BASE, withPassword('sess-lock'));
      expect(locked.status).toBe(400);
      expect(locked.body.details[0].id).toBe('user.locked');
      expect((await call('POST', BASE, { checks: { user: { userId } } })).body.details[0].id).toBe('user.locked');
      expect((await call('POST', `${USERS}/${userId}/_unlock`)).status).toBe(200);
      expect((await call('POST', BASE, withPassword('sess-lock'))).status).toBe(201);
    } finally {
      await call('PATCH', '/settings/v3alpha/users', { maxPasswordAttempts: 0 });
    }
  });

  it('checks a personal access token for a machine user, never a password; humans never a token', async () => {
    const created = await call('POST', BASE, { checks: { user: { loginName: 'sess-bot' }, token: { pat: botPat } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.factors.token.verifiedAt).toMatch(/^\d{4}-/);
    expect((await call('GET', `${BASE}/${created.body.details.id}`)).body.session.amr).toEqual(['pat']);
    const wrongPat = await call('POST', BASE, { checks: { user: { userId: botId }, token: { pat: 'not-a-token' } } });
    expect(wrongPat.status).toBe(400);
    expect(wrongPat.body.details[0].id).toBe('session.token_invalid');
    const otherPat = await call('POST', BASE, { checks: { user: { userId: botId }, token: { pat: node.adminToken } } });
    expect(otherPat.body.details[0].id).toBe('session.token_invalid');
    const machinePassword = await call('POST', BASE, { checks: { user: { userId: botId }, password: { password: PASSWORD } } });
    expect(machinePassword.status).toBe(400);
    expect(machinePassword.body.details[0].id).toBe('user.not_human');
    const humanPat = await call('POST', BASE, { checks: { user: { userId: aliceId }, token: { pat: botPat } } });
    expect(humanPat.status).toBe(400);
    expect(humanPat.body.details[0].id).toBe('user.not_machine');
  });

  it('rejects bad input naming the field, and unknown users', async () => {
    const cases: [unknown, string][] = [
      [{}, 'session.checks'],
      [{ checks: {} }, 'session.checks.user'],
      [{ checks: { user: {} } }, 'session.checks.user'],
      [{ checks: { user: { loginName: 'x'.repeat(201) } } }, 'session.checks.user.loginName'],
      [{ checks: { user: { loginName: 'sess-alice' }, password: { password: '' } } }, 'session.checks.password.password'],
      [{ checks: { user: { loginName: 'sess-alice' } }, lifetime: '0s' }, 'session.lifetime'],
      [{ checks: { user: { loginName: 'sess-alice' } }, lifetime: '40000000s' }, 'session.lifetime'],
      [{ checks: { user: { loginName: 'sess-alice' } }, metadata: { k: 'v'.repeat(2001) } }, 'session.metadata.k'],
    ];
    for (const [body, field] of cases) {
      const response = await call('POST', BASE, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(violatedFields(response.body), JSON.stringify(body)).toContain(field);
    }
    expect((await call('POST', BASE, { checks: { user: { loginName: 'sess-alice' } }, lifetime: 'soon' })).status).toBe(400);
    const unknown = await call('POST', BASE, { checks: { user: { loginName: 'nobody-here' } } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details[0].id).toBe('user.not_found');
    expect((await call('GET', `${BASE}/424242`)).status).toBe(404);
  });

  it('searches with each filter, sorts, pages, and hides expired sessions unless asked', async () => {
    const bobId = await createHuman('sess-bob');
    const start = new Date(Date.now() - 1).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call('POST', BASE, { checks: { user: { userId: bobId } }, lifetime: `${3600 - i * 60}s` })).body.details.id);
    const short = (await call('POST', BASE, { checks: { user: { userId: bobId } }, lifetime: '60s' })).body.details.id;
    const search = async (path: string, filters: unknown[]) => {
      const response = await call('POST', `${BASE}/_search${path}`, filters);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response;
    };
    const idsOf = async (path: string, filters: unknown[]) => ((await search(path, filters)).body.result ?? []).map((s: any) => s.details.id);
    const byBob = [{ userId: { id: bobId } }];

    expect(await idsOf('?query.asc=true', byBob)).toEqual([...ids, short]);
    node.advanceClock(61_000); // the node's clock, past the short session's expiry
    expect(await idsOf('?query.asc=true', byBob)).toEqual(ids);
    expect(await idsOf('', byBob)).toEqual([...ids].reverse());
    expect(await idsOf('', [...byBob, { state: { state: 'SESSION_STATE_EXPIRED' } }])).toEqual([short]);
    expect((await call('GET', `${BASE}/${short}`)).status).toBe(404);
    expect(await idsOf('?sortingColumn=SESSION_FIELD_NAME_EXPIRATION_DATE&query.asc=true', byBob)).toEqual([...ids].reverse());
    expect(await idsOf('?sortingColumn=SESSION_FIELD_NAME_EXPIRATION_DATE', byBob)).toEqual(ids);
    expect(await idsOf('?sortingColumn=SESSION_FIELD_NAME_ID&query.asc=true', byBob)).toEqual(ids);
    expect(await idsOf('?sortingColumn=SESSION_FIELD_NAME_CHANGE_DATE', byBob)).toEqual([...ids].reverse());
    expect(await idsOf('?sortingColumn=SESSION_FIELD_NAME_USER_ID', byBob)).toHaveLength(3);
    expect(await idsOf('', [...byBob, { inIds: { ids: [ids[0], ids[2]] } }])).toEqual([ids[2], ids[0]]);
    expect(await idsOf('', [...byBob, { orgId: { id: setup.orgId } }])).toHaveLength(3);
    expect(await idsOf('', [...byBob, { orgId: { id: 'other' } }])).toEqual([]);
    expect(await idsOf('', [...byBob, { creationDate: { creationDate: start, method: 'TIMESTAMP_FILTER_METHOD_GREATER_OR_EQUALS' } }])).toHaveLength(3);
    expect(await idsOf('', [...byBob, { creationDate: { creationDate: start, method: 'TIMESTAMP_FILTER_METHOD_LESS' } }])).toEqual([]);
    expect(await idsOf(`?ctx.orgId=${setup.orgId}`, byBob)).toHaveLength(3);

    const page = await search('?query.asc=true&query.offset=1&query.limit=1', byBob);
    expect(page.body.result.map((s: any) => s.details.id)).toEqual([ids[1]]);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    expect(page.body.details.endOfList).toBeUndefined();

    const tooMany = await call('POST', `${BASE}/_search?query.limit=1001`, []);
    expect(tooMany.status).toBe(400);
    expect(violatedFields(tooMany.body)).toContain('query.limit');
    const badFilters = await call('POST', `${BASE}/_search`, [{}, { userId: { id: '' } }, { state: {} }, { creationDate: {} }]);
    expect(badFilters.status).toBe(400);
    expect(violatedFields(badFilters.body)).toEqual(['filters[0]', 'filters[1].userId.id', 'filters[2].state.state', 'filters[3].creationDate.creationDate']);
  });

  it('answers over gRPC', async () => {
    const created = await call('POST', BASE, withPassword('sess-alice'));
    const client = createClient(PlatformSessions, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const viaGrpc = await client.getSession({ id: created.body.details.id }, { headers: { authorization: `Bearer ${node.adminToken}` } });
    expect(viaGrpc.session?.factors?.user?.id).toBe(aliceId);
    expect(viaGrpc.session?.amr).toEqual(['pwd']);
  });

  it('refuses callers without the permissions', async () => {
    const created = await call('POST', BASE, withPassword('sess-alice'));
    const id = created.body.details.id;
    const { token } = await seedMachineUser(node, { username: 'sess-norole' });
    const norole = api(node, token);
    for (const [method, path, body] of [
      ['POST', BASE, withPassword('sess-alice')],
      ['GET', `${BASE}/${id}`, undefined],
      ['PATCH', `${BASE}/${id}`, { metadata: { a: 'b' } }],
      ['DELETE', `${BASE}/${id}`, undefined],
    ] as const) {
      const response = await norole(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.details[0].id).toBe('auth.permission_denied');
    }
    const searched = await norole('POST', `${BASE}/_search`, []);
    expect(searched.status).toBe(200);
    expect(searched.body.result ?? []).toEqual([]);
    const { token: readerToken } = await seedMachineUser(node, {
      username: 'sess-reader',
      memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }],
    });
    const reader = api(node, readerToken);
    expect((await reader('GET', `${BASE}/${id}`)).status).toBe(200);
    expect((await reader('DELETE', `${BASE}/${id}`)).status).toBe(403);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(200);
    expect((await api(node, '')('GET', `${BASE}/${id}`)).status).toBe(401);
  });
});
