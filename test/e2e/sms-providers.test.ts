/**
 * PlatformSMSProviders: CRUD of generic and Twilio providers, search, one active provider per
 * instance, secrets never returned (signing key only at creation or regeneration, auth token
 * never), `_test` against a local HTTP receiver — the generic webhook's HMAC-SHA256 signature
 * checked with the returned key, Twilio's form POST with basic authentication, a provider
 * error reported — the outbound policy, bad input, 403, instance isolation, Connect and gRPC.
 */
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/executions/signature.js';
import { PlatformSMSProviders } from '../../src/gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';

const BASE = '/resources/v3alpha/sms_providers';
const TOKEN = 'twilio-Token-0815';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A local HTTP receiver: answers 200, or 401 with a JSON error for paths under /refuse. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if ((req.url ?? '').startsWith('/refuse')) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"code":20003,"message":"Authenticate"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"sid":"SM123","status":"queued"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let node: TestNode;
let call: ReturnType<typeof api>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let sys: ReturnType<typeof systemApi>;

const generic = (path = '/sms', description = 'Webhook SMS') => ({ description, generic: { url: `${receiver.url}${path}` } });
const twilio = (overrides: Record<string, unknown> = {}, description = 'Twilio') => ({
  description,
  twilio: { accountSid: 'AC0123', authToken: TOKEN, senderNumber: '+15005550006', baseUrl: receiver.url, ...overrides },
});

async function create(body: unknown, on = call): Promise<{ id: string; signingKey: string }> {
  const created = await on('POST', BASE, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.details.id, signingKey: created.body.signingKey ?? '' };
}

beforeAll(async () => {
  receiver = await startReceiver();
  const ops = await createSystemUserKey('ops', 'ES256');
  node = await startTestNode({ env: { TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]) } });
  sys = systemApi(node, ops);
  call = api(node);
});
afterAll(async () => {
  await node?.stop();
  node?.cleanup();
  await receiver?.close();
});

describe('SMS providers', () => {
  it('creates generic and Twilio providers, reads them without secrets, patches and deletes', async () => {
    const setup = await readSetup(node);
    const hook = await create(generic());
    expect(hook.signingKey).toMatch(/^[A-Za-z0-9]{36}$/);
    const got = await call('GET', `${BASE}/${hook.id}`);
    expect(got.status).toBe(200);
    expect(got.body.smsProvider).toMatchObject({
      details: { id: hook.id, resourceOwner: { type: 'OWNER_TYPE_INSTANCE', id: setup.instanceId } },
      smsProvider: { description: 'Webhook SMS', generic: { url: `${receiver.url}/sms` } },
      state: 'SMS_PROVIDER_STATE_INACTIVE',
    });
    expect(JSON.stringify(got.body)).not.toContain(hook.signingKey);

    const tw = await create(twilio());
    expect(tw.signingKey).toBe('');
    const read = await call('GET', `${BASE}/${tw.id}`);
    expect(read.body.smsProvider.smsProvider.twilio).toEqual({ accountSid: 'AC0123', hasAuthToken: true, senderNumber: '+15005550006', baseUrl: receiver.url });
    expect(JSON.stringify(read.body)).not.toContain(TOKEN);

    const patched = await call('PATCH', `${BASE}/${tw.id}`, { description: 'Twilio EU', twilio: { senderNumber: '+15005550007' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.signingKey).toBeUndefined();
    const noop = await call('PATCH', `${BASE}/${tw.id}`, { description: 'Twilio EU', twilio: { authToken: TOKEN } });
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('GET', `${BASE}/${tw.id}`)).body.smsProvider.smsProvider).toMatchObject({ description: 'Twilio EU', twilio: { senderNumber: '+15005550007', accountSid: 'AC0123' } });

    // the type cannot change; a signing key only for generic providers
    const retype = await call('PATCH', `${BASE}/${tw.id}`, { generic: { url: `${receiver.url}/x` } });
    expect(retype.status).toBe(400);
    expect(violatedFields(retype.body)).toEqual(['smsProvider.generic']);
    expect(violatedFields((await call('PATCH', `${BASE}/${tw.id}`, { regenerateSigningKey: true })).body)).toEqual(['smsProvider.regenerateSigningKey']);
    const rotated = await call('PATCH', `${BASE}/${hook.id}`, { regenerateSigningKey: true });
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingKey).toMatch(/^[A-Za-z0-9]{36}$/);
    expect(rotated.body.signingKey).not.toBe(hook.signingKey);

    expect((await call('DELETE', `${BASE}/${tw.id}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${tw.id}`)).status).toBe(404);
    const again = await call('DELETE', `${BASE}/${tw.id}`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('sms_provider.not_found');
    await call('DELETE', `${BASE}/${hook.id}`);
  });

  it('keeps one active provider per instance: activating one deactivates the other', async () => {
    const a = (await create(generic('/sms', 'act-a'))).id;
    const b = (await create(twilio({}, 'act-b'))).id;
    const state = async (id: string) => (await call('GET', `${BASE}/${id}`)).body.smsProvider.state;
    const activeIds = async () => ((await call('POST', `${BASE}/_search`, [{ state: { state: 'SMS_PROVIDER_STATE_ACTIVE' } }])).body.result ?? []).map((r: any) => r.details.id);
    expect(await activeIds()).toEqual([]);
    expect((await call('POST', `${BASE}/${a}/_activate`)).status).toBe(200);
    expect(await state(a)).toBe('SMS_PROVIDER_STATE_ACTIVE');
    expect((await call('POST', `${BASE}/${b}/_activate`)).status).toBe(200);
    expect(await state(a)).toBe('SMS_PROVIDER_STATE_INACTIVE');
    expect(await state(b)).toBe('SMS_PROVIDER_STATE_ACTIVE');
    expect(await activeIds()).toEqual([b]);
    expect((await call('POST', `${BASE}/${a}/_deactivate`)).status).toBe(200);
    expect(await activeIds()).toEqual([b]);
    expect((await call('POST', `${BASE}/${b}/_deactivate`)).status).toBe(200);
    expect(await activeIds()).toEqual([]);
    await call('POST', `${BASE}/${a}/_activate`);
    expect((await call('DELETE', `${BASE}/${a}`)).status).toBe(200);
    expect(await activeIds()).toEqual([]);
    await call('DELETE', `${BASE}/${b}`);
  });

  it('_test of a generic provider POSTs a signed JSON body the receiver can verify', async () => {
    const { id, signingKey } = await create(generic('/hook'));
    const before = receiver.received.length;
    const tested = await call('POST', `${BASE}/${id}/_test`, { number: '+41791234567' });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.success).toBe(true);
    expect(tested.body.providerAnswer).toBe('200 {"sid":"SM123","status":"queued"}');
    expect(receiver.received.length).toBe(before + 1);
    const request = receiver.received.at(-1)!;
    expect(request.path).toBe('/hook');
    expect(request.headers['content-type']).toBe('application/json');
    const setup = await readSetup(node);
    expect(JSON.parse(request.body)).toMatchObject({ recipient: '+41791234567', instanceId: setup.instanceId, providerId: id });
    const header = String(request.headers['platform-signature']);
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature(header, request.body, signingKey, now)).toBe(true);
    // control: another key or a changed body does not verify
    expect(verifySignature(header, request.body, 'x'.repeat(36), now)).toBe(false);
    expect(verifySignature(header, request.body.replace('+41', '+42'), signingKey, now)).toBe(false);
  });

  it('_test of a Twilio provider sends the form with basic auth, and reports a refusal as the provider error', async () => {
    const { id } = await create(twilio());
    const tested = await call('POST', `${BASE}/${id}/_test`, { number: '+41791234567' });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.success).toBe(true);
    const request = receiver.received.at(-1)!;
    expect(request.path).toBe('/2010-04-01/Accounts/AC0123/Messages.json');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`AC0123:${TOKEN}`).toString('base64')}`);
    const form = new URLSearchParams(request.body);
    expect(form.get('To')).toBe('+41791234567');
    expect(form.get('From')).toBe('+15005550006');
    expect(form.get('Body')).toContain('Tessera');

    const refusing = await create(twilio({ baseUrl: `${receiver.url}/refuse` }));
    const refused = await call('POST', `${BASE}/${refusing.id}/_test`, { number: '+41791234567' });
    expect(refused.status).toBe(200);
    expect(refused.body.success ?? false).toBe(false);
    expect(refused.body.providerAnswer).toBe('401 {"code":20003,"message":"Authenticate"}');
  });

  it('searches with filters, sorting and paging', async () => {
    const b = (await create(generic('/sms', 'find-b'))).id;
    const a = (await create(twilio({}, 'find-a'))).id;
    const c = (await create(generic('/sms', 'find-c'))).id;
    await call('PATCH', `${BASE}/${a}`, { twilio: { senderNumber: '+15005550009' } });
    const filter = { description: { text: 'find-', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } };
    const ids = async (query: string, filters: unknown[] = [filter]) => {
      const response = await call('POST', `${BASE}/_search?${query}`, filters);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return (response.body.result ?? []).map((s: any) => s.details.id);
    };
    const expected: Record<string, string[]> = {
      SMS_PROVIDER_FIELD_NAME_ID: [b, a, c],
      SMS_PROVIDER_FIELD_NAME_CREATION_DATE: [b, a, c],
      SMS_PROVIDER_FIELD_NAME_CHANGE_DATE: [b, c, a],
      SMS_PROVIDER_FIELD_NAME_DESCRIPTION: [a, b, c],
      SMS_PROVIDER_FIELD_NAME_TYPE: [b, c, a],
    };
    for (const [column, order] of Object.entries(expected)) {
      expect(await ids(`sortingColumn=${column}&query.asc=true`), column).toEqual(order);
      expect(await ids(`sortingColumn=${column}`), column).toEqual([...order].reverse());
    }
    expect(await ids('query.asc=true', [filter, { type: { type: 'SMS_PROVIDER_TYPE_TWILIO' } }])).toEqual([a]);
    expect(await ids('query.asc=true', [{ description: { text: 'FIND-C', method: 'TEXT_FILTER_METHOD_EQUALS_IGNORE_CASE' } }])).toEqual([c]);
    expect(await ids('query.asc=true', [filter, { inIds: { ids: [a, c] } }])).toEqual([a, c]);
    const page = await call('POST', `${BASE}/_search?sortingColumn=SMS_PROVIDER_FIELD_NAME_DESCRIPTION&query.asc=true&query.offset=1&query.limit=1`, [filter]);
    expect(page.body.result.map((s: any) => s.details.id)).toEqual([b]);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: [string, string, string, unknown, string][] = [
      ['no type', 'POST', BASE, { description: 'x' }, 'smsProvider.generic'],
      ['generic without url', 'POST', BASE, { generic: { url: '' } }, 'smsProvider.generic.url'],
      ['generic ftp url', 'POST', BASE, { generic: { url: 'ftp://example.com/x' } }, 'smsProvider.generic.url'],
      ['generic long url', 'POST', BASE, { generic: { url: `https://example.com/${'a'.repeat(1000)}` } }, 'smsProvider.generic.url'],
      ['twilio without sid', 'POST', BASE, twilio({ accountSid: '' }), 'smsProvider.twilio.accountSid'],
      ['twilio without token', 'POST', BASE, twilio({ authToken: '' }), 'smsProvider.twilio.authToken'],
      ['twilio without sender', 'POST', BASE, twilio({ senderNumber: '' }), 'smsProvider.twilio.senderNumber'],
      ['twilio bad base url', 'POST', BASE, twilio({ baseUrl: 'not a url' }), 'smsProvider.twilio.baseUrl'],
      ['long description', 'POST', BASE, { ...generic(), description: 'd'.repeat(201) }, 'smsProvider.description'],
      ['limit above 1000', 'POST', `${BASE}/_search?query.limit=1001`, [], 'query.limit'],
      ['type filter unspecified', 'POST', `${BASE}/_search`, [{ type: {} }], 'filters[0].type.type'],
      ['long filter', 'POST', `${BASE}/_search`, [{ description: { text: 'x'.repeat(201) } }], 'filters[0].description.text'],
    ];
    for (const [label, method, path, body, field] of cases) {
      const response = await call(method, path, body);
      expect(response.status, label).toBe(400);
      expect(violatedFields(response.body), label).toContain(field);
    }
    const { id } = await create(generic());
    for (const number of ['', '0791234567', '+41 79 123', '+1234567890123456']) {
      const response = await call('POST', `${BASE}/${id}/_test`, { number });
      expect(response.status, number).toBe(400);
      expect(violatedFields(response.body), number).toEqual(['receiver.number']);
    }
  });

  it('answers 403 without iam.sms.write', async () => {
    const setup = await readSetup(node);
    const viewer = await seedMachineUser(node, { username: 'sms-viewer', memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const { id } = await create(generic());
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${BASE}/${id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, generic()],
      ['PATCH', `${BASE}/${id}`, { description: 'x' }],
      ['DELETE', `${BASE}/${id}`, undefined],
      ['POST', `${BASE}/${id}/_activate`, undefined],
      ['POST', `${BASE}/${id}/_test`, { number: '+41791234567' }],
    ] as const) {
      const denied = await asViewer(method, path, body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.details[0].id).toBe('auth.permission_denied');
    }
  });

  it("another instance sees none of this instance's providers; its own are there", async () => {
    const { id } = await create(generic('/sms', 'isolated'));
    const created = await sys('POST', '/resources/v3alpha/instances', { name: 'SMS Other', domain: 'sms-other.example', admin: { username: 'other-admin' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const host = { host: `sms-other.example:${node.httpPort}` };
    const other = api(node, created.body.adminToken);
    expect((await other('GET', `${BASE}/${id}`, undefined, host)).status).toBe(404);
    expect((await other('POST', `${BASE}/${id}/_test`, { number: '+41791234567' }, host)).status).toBe(404);
    const theirs = await create(generic('/sms', 'theirs'), (m, p, b) => other(m, p, b, host));
    expect((await other('POST', `${BASE}/_search`, [], host)).body.result.map((r: any) => r.details.id)).toEqual([theirs.id]);
    // positive control: the owner reads and finds it
    expect((await call('GET', `${BASE}/${id}`)).body.smsProvider.smsProvider.description).toBe('isolated');
    expect((await call('POST', `${BASE}/_search`, [{ inIds: { ids: [id, theirs.id] } }])).body.result.map((r: any) => r.details.id)).toEqual([id]);
  });

  it('serves Connect and gRPC', async () => {
    const headers = { authorization: `Bearer ${node.adminToken}` };
    const connect = createClient(PlatformSMSProviders, createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' }));
    const created = await connect.createSMSProvider({ smsProvider: { description: 'over connect', providerType: { case: 'generic', value: { url: `${receiver.url}/connect` } } } }, { headers });
    const id = created.details!.id;
    expect(created.signingKey).toHaveLength(36);
    const tested = await connect.testSMSProvider({ id, receiver: { number: '+41791234567' } }, { headers });
    expect(tested.success).toBe(true);
    expect(receiver.received.at(-1)!.path).toBe('/connect');
    const found = await connect.searchSMSProviders({ filters: [{ filter: { case: 'inIds', value: { ids: [id] } } }] }, { headers });
    expect(found.result.map((r) => r.smsProvider?.description)).toEqual(['over connect']);
    const grpc = createClient(PlatformSMSProviders, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const viaGrpc = await grpc.getSMSProvider({ id }, { headers });
    expect(viaGrpc.smsProvider?.smsProvider?.providerType.case).toBe('generic');
    await grpc.activateSMSProvider({ id }, { headers });
    expect((await call('GET', `${BASE}/${id}`)).body.smsProvider.state).toBe('SMS_PROVIDER_STATE_ACTIVE');
  });
});

describe('SMS providers under the default outbound policy', () => {
  let strict: TestNode;
  beforeAll(async () => {
    strict = await startTestNode({ env: { TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
  });
  afterAll(async () => {
    await strict?.stop();
    strict?.cleanup();
  });

  it('refuses a private webhook or Twilio base URL (400 naming the field); a public one is accepted', async () => {
    const on = api(strict);
    const refused = await on('POST', BASE, generic());
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].id).toBe('outbound.address_refused');
    expect(violatedFields(refused.body)).toEqual(['smsProvider.generic.url']);
    const refusedTwilio = await on('POST', BASE, twilio({ baseUrl: 'http://[::1]:8080' }));
    expect(violatedFields(refusedTwilio.body)).toEqual(['smsProvider.twilio.baseUrl']);
    // positive control: a public address is accepted, a patch to a private one is refused
    const { id } = await create({ generic: { url: 'https://8.8.8.8/sms' } }, on);
    const patched = await on('PATCH', `${BASE}/${id}`, { generic: { url: 'http://10.0.0.1/sms' } });
    expect(patched.status).toBe(400);
    expect(violatedFields(patched.body)).toEqual(['smsProvider.generic.url']);
    // the default base URL (api.twilio.com: public, or not resolvable here) is accepted
    expect((await on('POST', BASE, twilio({ baseUrl: '' }))).status).toBe(201);
  });
});
