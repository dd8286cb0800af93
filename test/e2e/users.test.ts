/**
 * PlatformUsers over JSON/HTTP (and once over gRPC) against a started node: human and machine
 * CRUD, search (filters, sorting, paging, limits), lifecycle actions, passwords, metadata,
 * username uniqueness, bad input and permissions. Credentials (PATs, keys, secrets) are in
 * user-credentials.test.ts.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformUsers } from '../../src/gen/platform/resources/user/v3alpha/user_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const BASE = '/resources/v3alpha/users';

let node: TestNode;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  node = await startTestNode();
  call = api(node);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const human = (username: string, extra: Record<string, unknown> = {}) => ({
  human: {
    username,
    profile: { givenName: 'Alice', familyName: 'Smith', nickName: 'ali', preferredLanguage: 'en', gender: 'GENDER_FEMALE' },
    email: { address: `${username}@example.com` },
    password: 'Secr3tPassword',
    ...extra,
  },
});
const machine = (username: string, extra: Record<string, unknown> = {}) => ({ machine: { username, name: `Service ${username}`, ...extra } });

async function createUser(body: unknown, query = ''): Promise<string> {
  const created = await call('POST', `${BASE}${query}`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.details.id;
}

describe('human users', () => {
  it('creates, reads, patches (also as a no-op), deletes', async () => {
    const created = await call('POST', BASE, human('alice', { phone: { number: '+41791234567' } }));
    expect(created.status).toBe(201);
    const id: string = created.body.details.id;
    const setup = await readSetup(node);
    expect(created.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_ORG', id: setup.orgId });

    const got = await call('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.user).toMatchObject({
      username: 'alice',
      state: 'USER_STATE_ACTIVE',
      loginNames: ['alice@default.localhost'],
      preferredLoginName: 'alice@default.localhost',
      human: {
        profile: { givenName: 'Alice', familyName: 'Smith', displayName: 'Alice Smith', nickName: 'ali', preferredLanguage: 'en', gender: 'GENDER_FEMALE' },
        email: { address: 'alice@example.com' },
        phone: { number: '+41791234567' },
        passwordSet: true,
      },
    });
    expect(got.body.user.human.email.isVerified).toBeUndefined();
    expect(got.body.user.human.passwordChanged).toMatch(/^\d{4}-/);
    expect(JSON.stringify(got.body)).not.toContain('argon2');

    const patched = await call('PATCH', `${BASE}/${id}`, { human: { profile: { displayName: 'Ali S', gender: 'GENDER_DIVERSE' } } });
    expect(patched.status).toBe(200);
    const noop = await call('PATCH', `${BASE}/${id}`, { human: { profile: { displayName: 'Ali S' }, email: { address: 'alice@example.com' } } });
    expect(noop.status).toBe(200);
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('PATCH', `${BASE}/${id}`, {})).body.details.sequence).toBe(patched.body.details.sequence);

    // email: verify, then a new address resets verification unless isVerified is given
    expect((await call('POST', `${BASE}/${id}/_verify_email`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.user.human.email.isVerified).toBe(true);
    expect((await call('PATCH', `${BASE}/${id}`, { human: { email: { address: 'new@example.com' } } })).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.user.human.email).toEqual({ address: 'new@example.com' });
    await call('PATCH', `${BASE}/${id}`, { human: { email: { address: 'v@example.com', isVerified: true } } });
    expect((await call('GET', `${BASE}/${id}`)).body.user.human.email).toEqual({ address: 'v@example.com', isVerified: true });
    expect((await call('POST', `${BASE}/${id}/_verify_phone`)).status).toBe(200);
    await call('PATCH', `${BASE}/${id}`, { human: { phone: { number: '' } } });
    const noPhone = await call('POST', `${BASE}/${id}/_verify_phone`);
    expect(noPhone.status).toBe(400);
    expect(noPhone.body.details[0].id).toBe('user.phone_missing');

    // username change; machine fields on a human are refused
    expect((await call('PATCH', `${BASE}/${id}`, { username: 'alice2' })).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.user.preferredLoginName).toBe('alice2@default.localhost');
    const wrongKind = await call('PATCH', `${BASE}/${id}`, { machine: { name: 'x' } });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.details[0].id).toBe('user.not_machine');

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
    expect((await call('POST', BASE, human('alice2'))).status).toBe(201); // the username is free again
  });

  it('runs the lifecycle actions and keeps repeated ones as no-ops', async () => {
    const id = await createUser(human('lifecycle'));
    const state = async () => (await call('GET', `${BASE}/${id}`)).body.user.state;
    const locked = await call('POST', `${BASE}/${id}/_lock`);
    expect(locked.status).toBe(200);
    expect(await state()).toBe('USER_STATE_LOCKED');
    expect((await call('POST', `${BASE}/${id}/_lock`)).body.details.sequence).toBe(locked.body.details.sequence);
    const skip = await call('POST', `${BASE}/${id}/_activate`);
    expect(skip.status).toBe(400);
    expect(skip.body.details[0].id).toBe('user.locked');
    expect((await call('POST', `${BASE}/${id}/_unlock`)).status).toBe(200);
    expect(await state()).toBe('USER_STATE_ACTIVE');
    expect((await call('POST', `${BASE}/${id}/_deactivate`)).status).toBe(200);
    expect(await state()).toBe('USER_STATE_INACTIVE');
    expect((await call('POST', `${BASE}/${id}/_lock`)).body.details[0].id).toBe('user.inactive');
    expect((await call('POST', `${BASE}/${id}/_activate`)).status).toBe(200);
    expect(await state()).toBe('USER_STATE_ACTIVE');
    expect((await call('POST', `${BASE}/424242/_lock`)).status).toBe(404);
  });

  it('sets passwords under the complexity policy, and the policy can be changed', async () => {
    const id = await createUser(human('pw-user', { password: undefined }));
    expect((await call('GET', `${BASE}/${id}`)).body.user.human.passwordSet).toBeUndefined();
    const weak = await call('POST', `${BASE}/${id}/_set_password`, { password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.details[0].id).toBe('user.password.complexity');
    expect(violatedFields(weak.body)).toEqual(['password.password']);
    const set = await call('POST', `${BASE}/${id}/_set_password`, { password: 'Another1Password', changeRequired: true });
    expect(set.status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.user.human).toMatchObject({ passwordSet: true, passwordChangeRequired: true });

    const settings = await call('GET', '/settings/v3alpha/users');
    expect(settings.body.settings.passwordComplexity).toEqual({ minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true });
    expect((await call('PATCH', '/settings/v3alpha/users', { passwordComplexity: { hasSymbol: true } })).status).toBe(200);
    const noSymbol = await call('POST', `${BASE}/${id}/_set_password`, { password: 'Another1Password' });
    expect(noSymbol.body.details[0].id).toBe('user.password.complexity');
    expect((await call('POST', `${BASE}/${id}/_set_password`, { password: 'Another1Password!' })).status).toBe(200);
    await call('PATCH', '/settings/v3alpha/users', { passwordComplexity: { hasSymbol: false } });

    const machineId = await createUser(machine('pw-machine'));
    const notHuman = await call('POST', `${BASE}/${machineId}/_set_password`, { password: 'Another1Password' });
    expect(notHuman.body.details[0].id).toBe('user.not_human');
  });

  it('keeps metadata per key', async () => {
    const id = await createUser(human('meta-user'));
    const value = Buffer.from('hello').toString('base64');
    const set = await call('PUT', `${BASE}/${id}/metadata/color`, { value });
    expect(set.status).toBe(200);
    expect((await call('PUT', `${BASE}/${id}/metadata/color`, { value })).body.details.sequence).toBe(set.body.details.sequence);
    await call('PUT', `${BASE}/${id}/metadata/alpha`, { value: Buffer.from([0, 1, 2]).toString('base64') });
    const listed = await call('GET', `${BASE}/${id}/metadata`);
    expect(listed.body.metadata).toEqual([
      { key: 'alpha', value: 'AAEC' },
      { key: 'color', value },
    ]);
    expect((await call('DELETE', `${BASE}/${id}/metadata/color`)).status).toBe(200);
    const again = await call('DELETE', `${BASE}/${id}/metadata/color`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('user.metadata_not_found');
    const empty = await call('PUT', `${BASE}/${id}/metadata/x`, {});
    expect(violatedFields(empty.body)).toContain('metadata.value');
  });
});

describe('usernames', () => {
  it('are unique per organization regardless of case, and free in another organization', async () => {
    await createUser(human('Unique.One'));
    const dup = await call('POST', BASE, machine('unique.one'));
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('user.username_taken');
    const org = (await call('POST', '/resources/v3alpha/organizations', { name: 'Other Users Org' })).body.details.id;
    const elsewhere = await createUser(human('unique.one'), `?ctx.orgId=${org}`);
    const got = await call('GET', `${BASE}/${elsewhere}`);
    expect(got.body.user.details.resourceOwner.id).toBe(org);
    expect(got.body.user.loginNames).toEqual(['unique.one@other-users-org.localhost']);
  });

  it('are unique per instance while the policy says so', async () => {
    expect((await call('PATCH', '/settings/v3alpha/users', { usernameUniquePerInstance: true })).status).toBe(200);
    await createUser(human('instance-wide'));
    const org = (await call('POST', '/resources/v3alpha/organizations', { name: 'Instance Wide Org' })).body.details.id;
    const dup = await call('POST', `${BASE}?ctx.orgId=${org}`, human('INSTANCE-WIDE'));
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('user.username_taken');
    await call('PATCH', '/settings/v3alpha/users', { usernameUniquePerInstance: false });
  });
});

describe('search', () => {
  it('filters by each field', async () => {
    const a = await createUser(human('flt-anna', { profile: { givenName: 'Anna', familyName: 'Berg' } }));
    const b = await createUser(machine('flt-bot'));
    await call('POST', `${BASE}/${b}/_deactivate`);
    const search = async (filters: unknown[], query = '') => {
      const response = await call('POST', `${BASE}/_search?query.asc=true${query}`, [{ username: { username: 'flt-', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }, ...filters]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return (response.body.result ?? []).map((u: any) => u.details.id);
    };
    expect(await search([])).toEqual([a, b]);
    expect(await search([{ email: { address: 'FLT-ANNA@', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } }])).toEqual([a]);
    // The case-sensitive email filters (one index serves them and the email sort, machine users
    // under ''): the machine user is never a match, not even for an empty value.
    const email = (address: string, method: string) => search([{ email: { address, method: `TEXT_FILTER_METHOD_${method}` } }]);
    expect(await email('flt-anna@example.com', 'EQUALS')).toEqual([a]);
    expect(await email('FLT-anna@example.com', 'EQUALS')).toEqual([]);
    expect(await email('flt-anna@', 'STARTS_WITH')).toEqual([a]);
    expect(await email('anna@example', 'CONTAINS')).toEqual([a]);
    expect(await email('@example.com', 'ENDS_WITH')).toEqual([a]);
    for (const method of ['STARTS_WITH', 'CONTAINS', 'ENDS_WITH', 'STARTS_WITH_IGNORE_CASE']) expect(await email('', method), method).toEqual([a]);
    expect(await email('', 'EQUALS')).toEqual([]);
    expect(await search([{ displayName: { displayName: 'Anna Berg', method: 'TEXT_FILTER_METHOD_EQUALS' } }])).toEqual([a]);
    expect(await search([{ type: { type: 'USER_TYPE_MACHINE' } }])).toEqual([b]);
    expect(await search([{ state: { state: 'USER_STATE_INACTIVE' } }])).toEqual([b]);
    expect(await search([{ inIds: { ids: [b, '1'] } }])).toEqual([b]);
    expect(await search([{ loginName: { loginName: 'flt-bot@default.localhost', method: 'TEXT_FILTER_METHOD_EQUALS' } }])).toEqual([b]);
    const setup = await readSetup(node);
    expect(await search([{ orgId: { orgId: setup.orgId } }])).toEqual([a, b]);
    expect(await search([{ orgId: { orgId: '123' } }])).toEqual([]);
    expect(await search([], `&ctx.orgId=${setup.orgId}`)).toEqual([a, b]);
  });

  it('sorts by each column in both directions and pages', async () => {
    const b = await createUser(human('srt-b', { profile: { givenName: 'Bea', familyName: 'B' }, email: { address: 'b@example.com' } }));
    const a = await createUser(human('srt-a', { profile: { givenName: 'Cid', familyName: 'C' }, email: { address: 'c@example.com' } }));
    const c = await createUser(machine('srt-c', { name: 'Ann A' }));
    await call('POST', `${BASE}/${a}/_lock`);
    const expected: Record<string, string[]> = {
      USER_FIELD_NAME_ID: [b, a, c],
      USER_FIELD_NAME_CREATION_DATE: [b, a, c],
      USER_FIELD_NAME_CHANGE_DATE: [b, c, a],
      USER_FIELD_NAME_USERNAME: [a, b, c],
      USER_FIELD_NAME_DISPLAY_NAME: [c, b, a],
      USER_FIELD_NAME_EMAIL: [c, b, a],
      USER_FIELD_NAME_STATE: [b, c, a],
      USER_FIELD_NAME_TYPE: [b, a, c],
    };
    const filter = [{ username: { username: 'srt-', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }];
    const ids = async (query: string) => (await call('POST', `${BASE}/_search?${query}`, filter)).body.result.map((u: any) => u.details.id);
    for (const [column, order] of Object.entries(expected)) {
      expect(await ids(`sortingColumn=${column}&query.asc=true`), column).toEqual(order);
      expect(await ids(`sortingColumn=${column}`), column).toEqual([...order].reverse());
    }
    expect(await ids('')).toEqual([c, a, b]); // default: creation date, descending
    const page = await call('POST', `${BASE}/_search?sortingColumn=USER_FIELD_NAME_USERNAME&query.asc=true&query.offset=1&query.limit=1`, filter);
    expect(page.body.result.map((u: any) => u.details.id)).toEqual([b]);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    expect(page.body.details.endOfList).toBeUndefined();
  });

  it("lists, unfiltered, the users of organizations that exist: a removed organization's users leave the page and the total", async () => {
    const org = (await call('POST', '/resources/v3alpha/organizations', { name: 'Short Lived Users Org' })).body.details.id;
    const gone = await createUser(human('gone.user'), `?ctx.orgId=${org}`);
    const stays = await createUser(machine('stays.bot'));
    // The first page by creation date (the default sort, newest first), no filter, as the instance admin.
    const firstPage = async () => {
      const response = await call('POST', `${BASE}/_search?query.limit=2`, []);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return { ids: response.body.result.map((u: any) => u.details.id), total: Number(response.body.details.totalResult) };
    };
    const before = await firstPage();
    expect(before.ids).toEqual([stays, gone]); // control: listed while its organization exists
    expect((await call('DELETE', `/resources/v3alpha/organizations/${org}`)).status).toBe(200);
    const after = await firstPage();
    expect(after.ids[0]).toBe(stays);
    expect(after.ids).not.toContain(gone);
    expect(after.ids).toHaveLength(2);
    expect(after.total).toBe(before.total - 1);
  });

  it('rejects bad search input', async () => {
    const cases: [string, unknown, string][] = [
      ['?query.limit=1001', [], 'query.limit'],
      ['?sortingColumn=USER_FIELD_NAME_NOPE', [], 'sortingColumn'],
      ['', [{ username: { username: 'x'.repeat(201) } }], 'filters[0].username.username'],
      ['', [{ state: {} }], 'filters[0].state.state'],
      ['', [{}], 'filters[0]'],
    ];
    for (const [query, body, field] of cases) {
      const response = await call('POST', `${BASE}/_search${query}`, body);
      expect(response.status, field).toBe(400);
      expect(violatedFields(response.body), field).toContain(field);
    }
  });
});

describe('bad input and access', () => {
  it('rejects bad input for every create with 400 naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['malformed JSON', '{"human":', 'user'],
      ['no type', {}, 'user'],
      ['missing profile', { human: { username: 'x1', email: { address: 'a@b.ch' } } }, 'user.human.profile'],
      ['missing given name', human('x2', { profile: { familyName: 'F' } }), 'user.human.profile.givenName'],
      ['wrong type', human('x3', { profile: { givenName: 1, familyName: 'F' } }), 'user.human.profile.givenName'],
      ['long username', human('u'.repeat(201)), 'user.human.username'],
      ['whitespace username', human('a b'), 'user.human.username'],
      ['bad email', human('x4', { email: { address: 'nope' } }), 'user.human.email.address'],
      ['missing email', human('x5', { email: undefined }), 'user.human.email'],
      ['bad phone', human('x6', { phone: { number: '12' } }), 'user.human.phone.number'],
      ['bad language', human('x7', { profile: { givenName: 'G', familyName: 'F', preferredLanguage: 'english' } }), 'user.human.profile.preferredLanguage'],
      ['bad gender', human('x8', { profile: { givenName: 'G', familyName: 'F', gender: 'GENDER_NOPE' } }), 'user.human.profile.gender'],
      ['weak password', human('x9', { password: 'weak' }), 'user.human.password'],
      ['missing machine username', { machine: { name: 'n' } }, 'user.machine.username'],
      ['missing machine name', { machine: { username: 'm1' } }, 'user.machine.name'],
      ['long description', machine('m2', { description: 'd'.repeat(501) }), 'user.machine.description'],
      ['bad token type', machine('m3', { accessTokenType: 'ACCESS_TOKEN_TYPE_NOPE' }), 'user.machine.accessTokenType'],
      ['both types', { ...human('m4'), ...machine('m4') }, 'user.machine'],
    ];
    for (const [label, body, field] of cases) {
      const response = await call('POST', BASE, body);
      expect(response.status, label).toBe(400);
      expect(violatedFields(response.body), label).toContain(field);
    }
  });

  it('answers 403 without user.write and serves gRPC', async () => {
    const setup = await readSetup(node);
    const viewer = await seedMachineUser(node, {
      username: 'users-viewer',
      memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }],
    });
    const id = await createUser(human('guarded'));
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${BASE}/${id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, human('viewer-made')],
      ['PATCH', `${BASE}/${id}`, { username: 'x' }],
      ['POST', `${BASE}/${id}/_lock`, undefined],
      ['DELETE', `${BASE}/${id}`, undefined],
      ['POST', `${BASE}/${id}/_set_password`, { password: 'Another1Password' }],
    ] as const) {
      const denied = await asViewer(method, path, body);
      expect(denied.status, path).toBe(403);
      expect(denied.body.details[0].id).toBe('auth.permission_denied');
    }

    const client = createClient(PlatformUsers, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const headers = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const created = await client.createUser(
      { user: { type: { case: 'machine', value: { username: 'grpc-bot', name: 'gRPC Bot', description: '', accessTokenType: 1 } } } },
      headers,
    );
    const got = await client.getUser({ id: created.details!.id }, headers);
    expect(got.user?.username).toBe('grpc-bot');
    expect(got.user?.type.case).toBe('machine');
  });
});
