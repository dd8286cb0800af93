/**
 * PlatformLoginSettings against a started node (issue 14 "Login policy settings"): the secure
 * defaults, a change at the instance, inheritance into an organization (details name the
 * instance), an organization's own policy (a copy of the instance's, no longer following it),
 * the reset back to inheritance, bad input naming the field, permissions, the per-organization
 * OTP lockout threshold of the user settings, and the same answers over Connect, gRPC-web and
 * gRPC.
 */
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordlessType, PlatformLoginSettings, SecondFactorType } from '../../src/gen/platform/settings/login/v3alpha/login_settings_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const L = '/settings/v3alpha/login';
const ALL_SECOND = ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_OTP_EMAIL', 'SECOND_FACTOR_TYPE_OTP_SMS', 'SECOND_FACTOR_TYPE_U2F'];

let node: TestNode;
let call: ReturnType<typeof api>;
let instanceId: string;
let orgId: string;
let otherOrgId: string;

beforeAll(async () => {
  node = await startTestNode();
  call = api(node);
  instanceId = (await readSetup(node)).instanceId;
  orgId = (await call('POST', '/resources/v3alpha/organizations', { name: 'Login Policy Org' })).body.details.id;
  otherOrgId = (await call('POST', '/resources/v3alpha/organizations', { name: 'Login Policy Other' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

async function get(query = ''): Promise<any> {
  const response = await call('GET', `${L}${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function set(body: unknown, query = ''): Promise<any> {
  const response = await call('PATCH', `${L}${query}`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const instanceOwner = () => ({ type: 'OWNER_TYPE_INSTANCE', id: instanceId });
const orgOwner = (id: string) => ({ type: 'OWNER_TYPE_ORG', id });

describe('login settings', () => {
  it('start with the secure defaults: every way in, every factor, no forced MFA', async () => {
    const body = await get();
    expect(body.details.owner).toEqual(instanceOwner());
    expect(body.settings).toEqual({
      allowUsernamePassword: true,
      allowRegister: true,
      allowExternalIdp: true,
      secondFactors: ALL_SECOND,
      multiFactors: ['MULTI_FACTOR_TYPE_PASSKEY'],
      passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED',
    });
    // proto3 JSON leaves false booleans out: forceMfa, forceMfaLocalOnly, hidePasswordReset, the verifications
    expect(body.settings.forceMfa).toBeUndefined();
  });

  it('an instance change shows in an organization without its own policy, owned by the instance', async () => {
    const written = await set({ allowRegister: false, secondFactors: { value: ['SECOND_FACTOR_TYPE_TOTP'] } });
    expect(written.details.owner).toEqual(instanceOwner());
    const inherited = await get(`?ctx.orgId=${orgId}`);
    expect(inherited.details.owner).toEqual(instanceOwner());
    expect(inherited.details.sequence).toBe(written.details.sequence);
    expect(inherited.settings.allowRegister).toBeUndefined(); // false
    expect(inherited.settings.secondFactors).toEqual(['SECOND_FACTOR_TYPE_TOTP']);
    expect(inherited.settings.allowUsernamePassword).toBe(true); // control: untouched fields keep their value
  });

  it('an organization’s own policy starts from the instance’s and no longer follows it; reset inherits again', async () => {
    const own = await set({ forceMfa: true }, `?ctx.orgId=${orgId}`);
    expect(own.details.owner).toEqual(orgOwner(orgId));
    const read = await get(`?ctx.orgId=${orgId}`);
    expect(read.details.owner).toEqual(orgOwner(orgId));
    expect(read.settings).toMatchObject({ forceMfa: true, secondFactors: ['SECOND_FACTOR_TYPE_TOTP'] }); // copied from the instance
    expect(read.settings.allowRegister).toBeUndefined();

    await set({ allowRegister: true });
    expect((await get(`?ctx.orgId=${orgId}`)).settings.allowRegister, 'own policy').toBeUndefined();
    expect((await get(`?ctx.orgId=${otherOrgId}`)).settings.allowRegister, 'control: an inheriting organization follows').toBe(true);
    expect((await get()).settings.forceMfa, 'the instance is untouched by the organization').toBeUndefined();

    const reset = await call('DELETE', `${L}?ctx.orgId=${orgId}`);
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const back = await get(`?ctx.orgId=${orgId}`);
    expect(back.details.owner).toEqual(instanceOwner());
    expect(back.settings.allowRegister).toBe(true);
    expect(back.settings.forceMfa).toBeUndefined();
    // a reset of an organization that inherits changes nothing and succeeds
    expect((await call('DELETE', `${L}?ctx.orgId=${orgId}`)).status).toBe(200);
    await set({ secondFactors: { value: ALL_SECOND } });
  });

  it('a reset needs an organization context', async () => {
    const response = await call('DELETE', L);
    expect({ status: response.status, fields: violatedFields(response.body) }).toEqual({ status: 400, fields: ['ctx.orgId'] });
  });

  it.each([
    ['a boolean as text', { allowRegister: 'no' }, 'settings.allowRegister'],
    ['an unknown factor', { secondFactors: { value: ['SECOND_FACTOR_TYPE_CARRIER_PIGEON'] } }, 'settings.secondFactors.value[0]'],
    ['a factor twice', { secondFactors: { value: ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_TOTP'] } }, 'settings.secondFactors.value'],
    ['an unspecified factor', { secondFactors: { value: ['SECOND_FACTOR_TYPE_UNSPECIFIED'] } }, 'settings.secondFactors.value[0]'],
    ['forced MFA without any second factor', { forceMfa: true, secondFactors: { value: [] } }, 'settings.secondFactors'],
    ['no way to sign in', { allowUsernamePassword: false, allowExternalIdp: false, passwordlessType: 'PASSWORDLESS_TYPE_NOT_ALLOWED' }, 'settings.allowUsernamePassword'],
  ])('refuses %s with 400 naming the field; nothing changes', async (_, body, field) => {
    const before = await get();
    const response = await call('PATCH', L, body);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(violatedFields(response.body)).toEqual([field]);
    expect(await get()).toEqual(before);
  });

  it('accepts the edges of the refused combinations (controls)', async () => {
    await set({ allowUsernamePassword: false }); // external IdPs and passkeys remain
    await set({ allowUsernamePassword: true, forceMfaLocalOnly: true, secondFactors: { value: ['SECOND_FACTOR_TYPE_OTP_SMS'] } });
    expect((await get()).settings).toMatchObject({ allowUsernamePassword: true, forceMfaLocalOnly: true, secondFactors: ['SECOND_FACTOR_TYPE_OTP_SMS'] });
    await set({ forceMfaLocalOnly: false, secondFactors: { value: ALL_SECOND } });
  });

  it('reading needs policy.read, writing iam.policy.write or policy.write in the organization', async () => {
    const viewer = await seedMachineUser(node, { username: 'login-viewer', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', L)).status).toBe(200);
    expect((await asViewer('PATCH', L, { allowRegister: false })).status).toBe(403);
    const owner = await seedMachineUser(node, { username: 'login-org-owner', memberships: [{ contextType: 'org', contextId: otherOrgId, roles: ['ORG_OWNER'] }] });
    const asOrgOwner = api(node, owner.token);
    expect((await asOrgOwner('PATCH', `${L}?ctx.orgId=${otherOrgId}`, { hidePasswordReset: true })).status).toBe(200);
    expect((await asOrgOwner('DELETE', `${L}?ctx.orgId=${otherOrgId}`)).status).toBe(200);
    expect((await asOrgOwner('PATCH', L, { hidePasswordReset: true })).status).toBe(403);
    expect((await asOrgOwner('PATCH', `${L}?ctx.orgId=${orgId}`, { hidePasswordReset: true })).status).toBe(403);
    expect((await api(node, '')('GET', L)).status).toBe(401);
  });
});

describe('per-organization OTP lockout (user settings)', () => {
  const U = '/settings/v3alpha/users';
  it('an organization sets its own maxOtpAttempts; the instance’s stays; others inherit', async () => {
    const instance = (await call('GET', U)).body.settings.maxOtpAttempts;
    const written = await call('PATCH', `${U}?ctx.orgId=${orgId}`, { maxOtpAttempts: 3 });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const own = await call('GET', `${U}?ctx.orgId=${orgId}`);
    expect(own.body.settings.maxOtpAttempts).toBe(3);
    expect(own.body.details.owner).toEqual(orgOwner(orgId));
    expect(own.body.settings.maxPasswordAttempts, 'the password threshold is still the instance’s').toBe((await call('GET', U)).body.settings.maxPasswordAttempts);
    expect((await call('GET', U)).body.settings.maxOtpAttempts).toBe(instance);
    expect((await call('GET', `${U}?ctx.orgId=${otherOrgId}`)).body.settings.maxOtpAttempts).toBe(instance);
    const bad = await call('PATCH', `${U}?ctx.orgId=${orgId}`, { maxOtpAttempts: 5000 });
    expect({ status: bad.status, fields: violatedFields(bad.body) }).toEqual({ status: 400, fields: ['settings.maxOtpAttempts'] });
    const empty = await call('PATCH', `${U}?ctx.orgId=${orgId}`, {});
    expect({ status: empty.status, fields: violatedFields(empty.body) }).toEqual({ status: 400, fields: ['settings.maxPasswordAttempts'] });
  });
});

describe('export and import carry the organization’s own login policy (loginPolicy)', () => {
  const exportOrg = async (id: string) => {
    const response = await call('POST', '/admin/v1/export', { org_ids: [id], response_output: true, timeout: '1m' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.orgs[0];
  };

  it('exports an own policy by the reference’s names; an inherited one not at all; import restores it', async () => {
    await set({ forceMfa: true, allowRegister: false, secondFactors: { value: ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_U2F'] } }, `?ctx.orgId=${orgId}`);
    const exported = await exportOrg(orgId);
    expect(exported.loginPolicy).toEqual({
      allowUsernamePassword: true,
      allowRegister: false,
      allowExternalIdp: true,
      forceMfa: true,
      forceMfaLocalOnly: false,
      hidePasswordReset: false,
      passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED',
      secondFactors: ['SECOND_FACTOR_TYPE_OTP', 'SECOND_FACTOR_TYPE_U2F'],
      multiFactors: ['MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION'],
      emailVerificationRequired: false,
      phoneVerificationRequired: false,
    });
    expect((await exportOrg(otherOrgId)).loginPolicy, 'control: an inheriting organization').toBeUndefined();

    expect((await call('DELETE', `${L}?ctx.orgId=${orgId}`)).status).toBe(200);
    const imported = await call('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1: JSON.stringify({ orgs: [exported] }) });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.errors).toEqual([]);
    const restored = await get(`?ctx.orgId=${orgId}`);
    expect(restored.details.owner).toEqual(orgOwner(orgId));
    expect(restored.settings).toMatchObject({ forceMfa: true, secondFactors: ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_U2F'] });
    expect(restored.settings.allowRegister).toBeUndefined();
    expect((await call('DELETE', `${L}?ctx.orgId=${orgId}`)).status).toBe(200);
  });

  it('imports a new organization’s policy; a bad factor fails the policy alone, naming the field', async () => {
    const doc = {
      orgs: [
        { orgId: 'login-import-ok', org: { name: 'Login Import Ok' }, loginPolicy: { allowRegister: false, secondFactors: ['SECOND_FACTOR_TYPE_OTP_EMAIL'], passwordlessType: 'PASSWORDLESS_TYPE_NOT_ALLOWED' } },
        { orgId: 'login-import-bad', org: { name: 'Login Import Bad' }, loginPolicy: { secondFactors: ['SECOND_FACTOR_TYPE_SMOKE_SIGNAL'] } },
      ],
    };
    const response = await call('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1: doc });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.errors).toEqual([{ type: 'login_policy', id: 'login-import-bad', code: 'import.value_invalid', message: expect.stringContaining('loginPolicy.secondFactors[0]') }]);
    const ok = await get('?ctx.orgId=login-import-ok');
    expect(ok.details.owner).toEqual(orgOwner('login-import-ok'));
    expect(ok.settings).toMatchObject({ secondFactors: ['SECOND_FACTOR_TYPE_OTP_EMAIL'] });
    expect(ok.settings.passwordlessType, 'PASSWORDLESS_TYPE_NOT_ALLOWED is the enum’s 0: absent in proto3 JSON').toBeUndefined();
    expect(ok.settings.allowRegister).toBeUndefined();
    expect((await get('?ctx.orgId=login-import-bad')).details.owner, 'control: the failed policy leaves the organization inheriting').toEqual(instanceOwner());
  });

  it('imports every factor by the reference’s names, Tessera’s names and the proto3 JSON enum numbers; unspecified and unknown refused', async () => {
    const everySecond = ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_U2F', 'SECOND_FACTOR_TYPE_OTP_EMAIL', 'SECOND_FACTOR_TYPE_OTP_SMS'];
    const cases: { id: string; policy: object; second?: string[]; multi?: string[] }[] = [
      { id: 'factors-ref', policy: { secondFactors: ['SECOND_FACTOR_TYPE_OTP', 'SECOND_FACTOR_TYPE_U2F', 'SECOND_FACTOR_TYPE_OTP_EMAIL', 'SECOND_FACTOR_TYPE_OTP_SMS'], multiFactors: ['MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION'] }, second: everySecond, multi: ['MULTI_FACTOR_TYPE_PASSKEY'] },
      { id: 'factors-own', policy: { secondFactors: ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_OTP_SMS'], multiFactors: ['MULTI_FACTOR_TYPE_PASSKEY'] }, second: ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_OTP_SMS'], multi: ['MULTI_FACTOR_TYPE_PASSKEY'] },
      { id: 'factors-num', policy: { secondFactors: [1, 2, 3, 4], multiFactors: [1] }, second: everySecond, multi: ['MULTI_FACTOR_TYPE_PASSKEY'] },
      { id: 'factors-unspec', policy: { secondFactors: ['SECOND_FACTOR_TYPE_UNSPECIFIED'] } },
      { id: 'factors-zero', policy: { multiFactors: [0] } },
      { id: 'factors-multi-as-second', policy: { secondFactors: ['MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION'] } },
    ];
    const doc = { orgs: cases.map((c) => ({ orgId: c.id, org: { name: c.id }, loginPolicy: c.policy })) };
    const response = await call('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1: doc });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const failed = (response.body.errors as { type: string; id: string; message: string }[]).map((e) => [e.type, e.id, /loginPolicy\.(second|multi)Factors\[0\]/u.test(e.message)]);
    expect(failed).toEqual([
      ['login_policy', 'factors-unspec', true],
      ['login_policy', 'factors-zero', true],
      ['login_policy', 'factors-multi-as-second', true],
    ]);
    for (const c of cases) {
      const read = await get(`?ctx.orgId=${c.id}`);
      if (c.second === undefined) {
        expect(read.details.owner, `${c.id}: refused, the organization inherits`).toEqual(instanceOwner());
        continue;
      }
      expect(read.details.owner, c.id).toEqual(orgOwner(c.id));
      expect({ id: c.id, second: read.settings.secondFactors, multi: read.settings.multiFactors }).toEqual({ id: c.id, second: c.second, multi: c.multi });
    }
  });

  it('reads the older format’s organization-level secondFactors / multiFactors into the login policy; the policy’s own list wins', async () => {
    const doc = {
      orgs: [
        { orgId: 'older-factors', org: { name: 'Older Factors' }, secondFactors: [{ type: 'SECOND_FACTOR_TYPE_OTP' }, { type: 4 }], multiFactors: [{ type: 'MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION' }] },
        { orgId: 'older-factors-own', org: { name: 'Older Factors Own' }, secondFactors: [{ type: 'SECOND_FACTOR_TYPE_OTP' }], loginPolicy: { secondFactors: ['SECOND_FACTOR_TYPE_U2F'] } },
        { orgId: 'older-factors-bad', org: { name: 'Older Factors Bad' }, secondFactors: [{ type: 'SECOND_FACTOR_TYPE_SMOKE_SIGNAL' }] },
        { orgId: 'older-factors-none', org: { name: 'Older Factors None' } },
      ],
    };
    const response = await call('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1: doc });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.errors).toEqual([{ type: 'login_policy', id: 'older-factors-bad', code: 'import.value_invalid', message: expect.stringContaining('secondFactors[0]') }]);
    const converted = await get('?ctx.orgId=older-factors');
    expect(converted.details.owner).toEqual(orgOwner('older-factors'));
    expect({ second: converted.settings.secondFactors, multi: converted.settings.multiFactors }).toEqual({ second: ['SECOND_FACTOR_TYPE_TOTP', 'SECOND_FACTOR_TYPE_OTP_SMS'], multi: ['MULTI_FACTOR_TYPE_PASSKEY'] });
    expect((await get('?ctx.orgId=older-factors-own')).settings.secondFactors, 'loginPolicy’s own list wins').toEqual(['SECOND_FACTOR_TYPE_U2F']);
    expect((await get('?ctx.orgId=older-factors-bad')).details.owner, 'a bad type fails the policy alone').toEqual(instanceOwner());
    expect((await get('?ctx.orgId=older-factors-none')).details.owner, 'control: no factors, no policy — the organization inherits').toEqual(instanceOwner());
  });

  it('carries the organization’s own maxOtpAttempts in lockoutPolicy', async () => {
    await call('PATCH', `/settings/v3alpha/users?ctx.orgId=${orgId}`, { maxOtpAttempts: 4 });
    expect((await exportOrg(orgId)).lockoutPolicy).toMatchObject({ maxOtpAttempts: '4' });
    const doc = { orgs: [{ orgId: 'otp-lockout-import', org: { name: 'Otp Lockout Import' }, lockoutPolicy: { maxOtpAttempts: '6' } }] };
    const response = await call('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1: doc });
    expect(response.body.errors).toEqual([]);
    const users = await call('GET', '/settings/v3alpha/users?ctx.orgId=otp-lockout-import');
    expect(users.body.settings.maxOtpAttempts).toBe(6);
    expect(users.body.settings.maxPasswordAttempts).toBe((await call('GET', '/settings/v3alpha/users')).body.settings.maxPasswordAttempts);
  });
});

const auth = () => ({ headers: { authorization: `Bearer ${node.adminToken}` } });

describe.each([
  ['connect', () => createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
  ['grpc-web', () => createGrpcWebTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
  ['grpc', () => createGrpcTransport({ baseUrl: node.grpcUrl })],
] as [string, () => Transport][])('%s transport', (_name, transport) => {
  it('reads, sets and resets what JSON/HTTP does, and names a bad field', async () => {
    const client = createClient(PlatformLoginSettings, transport());
    const ctx = { context: { case: 'orgId' as const, value: otherOrgId } };
    await client.setLoginSettings({ ctx, settings: { allowExternalIdp: false, secondFactors: { value: [SecondFactorType.TOTP] } } }, auth());
    const viaRpc = await client.getLoginSettings({ ctx }, auth());
    const viaJson = await get(`?ctx.orgId=${otherOrgId}`);
    expect(viaRpc.settings?.allowExternalIdp).toBe(false);
    expect(viaRpc.settings?.secondFactors).toEqual([SecondFactorType.TOTP]);
    expect(viaRpc.settings?.passwordlessType).toBe(PasswordlessType.ALLOWED);
    expect(viaRpc.details?.owner?.id).toBe(otherOrgId);
    expect(String(viaRpc.details?.sequence)).toBe(viaJson.details.sequence);
    await client.resetLoginSettings({ ctx }, auth());
    expect((await client.getLoginSettings({ ctx }, auth())).settings?.allowExternalIdp, 'inherited again').toBe(true);

    const invalid = await client.setLoginSettings({ settings: { forceMfa: true, secondFactors: { value: [] } } }, auth()).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ConnectError);
    expect((invalid as ConnectError).code).toBe(Code.InvalidArgument);
    expect((invalid as ConnectError).message).toContain('settings.secondFactors');
  });
});
