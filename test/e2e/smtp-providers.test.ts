/**
 * PlatformSMTPProviders: CRUD, search (filters, sorting, paging, limits), one active provider
 * per instance, the password never returned, `_test` against a real SMTP server on 127.0.0.1
 * (smtp-server) that accepts — the delivered message is read — or refuses the login, the
 * outbound policy (a private host refused without TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS, with a
 * positive control on a node that allows it), bad input, 403, instance isolation, Connect and gRPC.
 */
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformSMTPProviders, SmtpTlsMode } from '../../src/gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';

const BASE = '/resources/v3alpha/smtp_providers';
const PASSWORD = 'smtp-Secret-4711';

interface Delivered {
  readonly from: string;
  readonly to: readonly string[];
  readonly raw: string;
}

/** A real SMTP server on 127.0.0.1 without TLS; logins other than tessera/PASSWORD are refused (535). */
async function startSmtpServer(): Promise<{ port: number; delivered: Delivered[]; logins: string[]; close(): Promise<void> }> {
  const delivered: Delivered[] = [];
  const logins: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(auth.username ?? '');
      if (auth.username === 'tessera' && auth.password === PASSWORD) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        delivered.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, delivered, logins, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let node: TestNode;
let call: ReturnType<typeof api>;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let sys: ReturnType<typeof systemApi>;

const provider = (overrides: Record<string, unknown> = {}) => ({
  description: 'Main mail',
  host: '127.0.0.1',
  port: smtp.port,
  tlsMode: 'SMTP_TLS_MODE_NONE',
  user: 'tessera',
  password: PASSWORD,
  senderAddress: 'noreply@tessera.example',
  senderName: 'Tessera',
  replyToAddress: 'help@tessera.example',
  ...overrides,
});

async function create(overrides: Record<string, unknown> = {}, on = call): Promise<string> {
  const created = await on('POST', BASE, provider(overrides));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.details.id;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  const ops = await createSystemUserKey('ops', 'ES256');
  node = await startTestNode({ env: { TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]) } });
  sys = systemApi(node, ops);
  call = api(node);
});
afterAll(async () => {
  await node?.stop();
  node?.cleanup();
  await smtp?.close();
});

describe('SMTP providers', () => {
  it('creates, reads (never the password), patches (also as a no-op) and deletes', async () => {
    const setup = await readSetup(node);
    const id = await create();
    const got = await call('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.smtpProvider).toMatchObject({
      details: { id, resourceOwner: { type: 'OWNER_TYPE_INSTANCE', id: setup.instanceId } },
      smtpProvider: {
        description: 'Main mail',
        host: '127.0.0.1',
        port: smtp.port,
        tlsMode: 'SMTP_TLS_MODE_NONE',
        user: 'tessera',
        hasPassword: true,
        senderAddress: 'noreply@tessera.example',
        senderName: 'Tessera',
        replyToAddress: 'help@tessera.example',
      },
      state: 'SMTP_PROVIDER_STATE_INACTIVE',
    });
    expect(JSON.stringify(got.body)).not.toContain(PASSWORD);
    expect(got.body.smtpProvider.smtpProvider.password).toBeUndefined();

    const patched = await call('PATCH', `${BASE}/${id}`, { description: 'Renamed', tlsMode: 'SMTP_TLS_MODE_STARTTLS', port: 587 });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.details.sequence).not.toBe(got.body.smtpProvider.details.sequence);
    const noop = await call('PATCH', `${BASE}/${id}`, { description: 'Renamed', password: PASSWORD });
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('PATCH', `${BASE}/${id}`, {})).body.details.sequence).toBe(patched.body.details.sequence);
    const after = (await call('GET', `${BASE}/${id}`)).body.smtpProvider.smtpProvider;
    expect(after).toMatchObject({ description: 'Renamed', tlsMode: 'SMTP_TLS_MODE_STARTTLS', port: 587, hasPassword: true });
    expect((await call('PATCH', `${BASE}/${id}`, { password: '' })).status).toBe(200);
    // proto3 JSON leaves false out
    expect((await call('GET', `${BASE}/${id}`)).body.smtpProvider.smtpProvider.hasPassword ?? false).toBe(false);

    // the password is nowhere in search answers either
    const listed = await call('POST', `${BASE}/_search`, [{ inIds: { ids: [id] } }]);
    expect(listed.body.result).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(PASSWORD);

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(404);
    const again = await call('DELETE', `${BASE}/${id}`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('smtp_provider.not_found');
  });

  it('keeps one active provider per instance: activating one deactivates the other', async () => {
    const a = await create({ description: 'act-a' });
    const b = await create({ description: 'act-b' });
    const state = async (id: string) => (await call('GET', `${BASE}/${id}`)).body.smtpProvider.state;
    const activeIds = async () =>
      ((await call('POST', `${BASE}/_search`, [{ state: { state: 'SMTP_PROVIDER_STATE_ACTIVE' } }])).body.result ?? []).map((r: any) => r.details.id);
    expect(await activeIds()).toEqual([]);
    const activated = await call('POST', `${BASE}/${a}/_activate`);
    expect(activated.status).toBe(200);
    expect(await state(a)).toBe('SMTP_PROVIDER_STATE_ACTIVE');
    expect(await state(b)).toBe('SMTP_PROVIDER_STATE_INACTIVE');
    // activating the active one again records nothing
    expect((await call('POST', `${BASE}/${a}/_activate`)).body.details.sequence).toBe(activated.body.details.sequence);
    expect((await call('POST', `${BASE}/${b}/_activate`)).status).toBe(200);
    expect(await state(a)).toBe('SMTP_PROVIDER_STATE_INACTIVE');
    expect(await state(b)).toBe('SMTP_PROVIDER_STATE_ACTIVE');
    expect(await activeIds()).toEqual([b]);
    const inactive = (await call('POST', `${BASE}/_search`, [{ state: { state: 'SMTP_PROVIDER_STATE_INACTIVE' } }, { inIds: { ids: [a, b] } }])).body.result.map((r: any) => r.details.id);
    expect(inactive).toEqual([a]);
    // deactivating an inactive one is a no-op; deactivating the active one leaves none
    expect((await call('POST', `${BASE}/${a}/_deactivate`)).status).toBe(200);
    expect(await state(b)).toBe('SMTP_PROVIDER_STATE_ACTIVE');
    expect((await call('POST', `${BASE}/${b}/_deactivate`)).status).toBe(200);
    expect(await activeIds()).toEqual([]);
    // deleting the active provider leaves none active
    await call('POST', `${BASE}/${a}/_activate`);
    expect(await activeIds()).toEqual([a]);
    expect((await call('DELETE', `${BASE}/${a}`)).status).toBe(200);
    expect(await activeIds()).toEqual([]);
    expect((await call('POST', `${BASE}/${a}/_activate`)).status).toBe(404);
    await call('DELETE', `${BASE}/${b}`);
  });

  it('concurrent activations of different providers leave exactly one active', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await create({ description: `race-${i}` }));
    const answers = await Promise.all(ids.map((id) => call('POST', `${BASE}/${id}/_activate`)));
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
    const states = await Promise.all(ids.map(async (id) => (await call('GET', `${BASE}/${id}`)).body.smtpProvider.state));
    expect(states.filter((s) => s === 'SMTP_PROVIDER_STATE_ACTIVE')).toHaveLength(1);
    const active = (await call('POST', `${BASE}/_search`, [{ state: { state: 'SMTP_PROVIDER_STATE_ACTIVE' } }])).body.result.map((r: any) => r.details.id);
    expect(active).toHaveLength(1);
    expect(ids).toContain(active[0]);
    await call('POST', `${BASE}/${active[0]}/_deactivate`);
    for (const id of ids) await call('DELETE', `${BASE}/${id}`);
  });

  it('_test delivers a real mail through the SMTP server and reports its answer', async () => {
    const id = await create({ description: 'tester' });
    const before = smtp.delivered.length;
    const tested = await call('POST', `${BASE}/${id}/_test`, { address: 'alice@example.org' });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.success).toBe(true);
    expect(tested.body.providerAnswer).toMatch(/^250/);
    expect(tested.body.messageId).toMatch(/@/);
    expect(smtp.delivered.length).toBe(before + 1);
    const mail = smtp.delivered.at(-1)!;
    expect(mail.from).toBe('noreply@tessera.example');
    expect(mail.to).toEqual(['alice@example.org']);
    expect(mail.raw).toContain('Subject: Tessera test mail');
    expect(mail.raw).toMatch(/From: Tessera <noreply@tessera\.example>/);
    expect(mail.raw).toContain('Reply-To: help@tessera.example');
    expect(mail.raw).toContain(`SMTP provider ${id}`);
    expect(mail.raw).toContain(tested.body.messageId);
    expect(smtp.logins.at(-1)).toBe('tessera');
  });

  it('_test reports the server refusing the login as the provider error (200, success false)', async () => {
    const id = await create({ description: 'wrong password', password: 'not-the-password' });
    const before = smtp.delivered.length;
    const tested = await call('POST', `${BASE}/${id}/_test`, { address: 'alice@example.org' });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.success ?? false).toBe(false);
    expect(tested.body.providerAnswer).toMatch(/\b535\b/);
    expect(tested.body.providerAnswer).toContain('Authentication credentials invalid');
    expect(smtp.delivered.length).toBe(before);
    // positive control: the same provider with the right password delivers
    expect((await call('PATCH', `${BASE}/${id}`, { password: PASSWORD })).status).toBe(200);
    const fixed = await call('POST', `${BASE}/${id}/_test`, { address: 'bob@example.org' });
    expect(fixed.body.success).toBe(true);
    expect(smtp.delivered.length).toBe(before + 1);
  });

  it('searches with text filters, sorting and paging', async () => {
    const b = await create({ description: 'srt-b', host: 'mail-b.example.com', senderAddress: 'b@z.example' });
    const a = await create({ description: 'srt-a', host: 'mail-c.example.com', senderAddress: 'c@z.example' });
    const c = await create({ description: 'srt-c', host: 'mail-a.example.com', senderAddress: 'a@z.example' });
    await call('PATCH', `${BASE}/${a}`, { senderName: 'changed' });
    const filter = { description: { text: 'SRT-', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } };
    const ids = async (query: string, filters: unknown[] = [filter]) => {
      const response = await call('POST', `${BASE}/_search?${query}`, filters);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return (response.body.result ?? []).map((s: any) => s.details.id);
    };
    const expected: Record<string, string[]> = {
      SMTP_PROVIDER_FIELD_NAME_ID: [b, a, c],
      SMTP_PROVIDER_FIELD_NAME_CREATION_DATE: [b, a, c],
      SMTP_PROVIDER_FIELD_NAME_CHANGE_DATE: [b, c, a],
      SMTP_PROVIDER_FIELD_NAME_DESCRIPTION: [a, b, c],
      SMTP_PROVIDER_FIELD_NAME_HOST: [c, b, a],
      SMTP_PROVIDER_FIELD_NAME_SENDER_ADDRESS: [c, b, a],
    };
    for (const [column, order] of Object.entries(expected)) {
      expect(await ids(`sortingColumn=${column}&query.asc=true`), column).toEqual(order);
      expect(await ids(`sortingColumn=${column}`), column).toEqual([...order].reverse());
    }
    expect(await ids('query.asc=true', [{ host: { text: 'mail-b.example.com', method: 'TEXT_FILTER_METHOD_EQUALS' } }])).toEqual([b]);
    expect(await ids('query.asc=true', [filter, { senderAddress: { text: 'A@Z', method: 'TEXT_FILTER_METHOD_CONTAINS_IGNORE_CASE' } }])).toEqual([c]);
    expect(await ids('query.asc=true', [{ description: { text: '-c', method: 'TEXT_FILTER_METHOD_ENDS_WITH' } }])).toEqual([c]);
    expect(await ids('query.asc=true', [filter, { inIds: { ids: [a, c] } }])).toEqual([a, c]);
    const page = await call('POST', `${BASE}/_search?sortingColumn=SMTP_PROVIDER_FIELD_NAME_DESCRIPTION&query.asc=true&query.offset=1&query.limit=1`, [filter]);
    expect(page.body.result.map((s: any) => s.details.id)).toEqual([b]);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    const defaulted = await call('POST', `${BASE}/_search`, [filter]);
    expect(defaulted.body.details.appliedLimit).toBe(100);
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: [string, string, string, unknown, string][] = [
      ['malformed JSON', 'POST', BASE, '{"host":', 'smtpProvider'],
      ['missing host', 'POST', BASE, provider({ host: '' }), 'smtpProvider.host'],
      ['host with a path', 'POST', BASE, provider({ host: 'mail.example.com/x' }), 'smtpProvider.host'],
      ['long host', 'POST', BASE, provider({ host: `${'a'.repeat(250)}.com` }), 'smtpProvider.host'],
      ['port 0', 'POST', BASE, provider({ port: 0 }), 'smtpProvider.port'],
      ['port 70000', 'POST', BASE, provider({ port: 70000 }), 'smtpProvider.port'],
      ['port as text', 'POST', BASE, provider({ port: 'many' }), 'smtpProvider.port'],
      ['tls unspecified', 'POST', BASE, provider({ tlsMode: 'SMTP_TLS_MODE_UNSPECIFIED' }), 'smtpProvider.tlsMode'],
      ['tls unknown', 'POST', BASE, provider({ tlsMode: 'SMTP_TLS_MODE_SSL3' }), 'smtpProvider.tlsMode'],
      ['sender not an address', 'POST', BASE, provider({ senderAddress: 'nobody' }), 'smtpProvider.senderAddress'],
      ['reply-to not an address', 'POST', BASE, provider({ replyToAddress: 'x@' }), 'smtpProvider.replyToAddress'],
      ['long description', 'POST', BASE, provider({ description: 'd'.repeat(201) }), 'smtpProvider.description'],
      ['long password', 'POST', BASE, provider({ password: 'p'.repeat(201) }), 'smtpProvider.password'],
      ['limit above 1000', 'POST', `${BASE}/_search?query.limit=1001`, [], 'query.limit'],
      ['long filter', 'POST', `${BASE}/_search`, [{ host: { text: 'x'.repeat(201) } }], 'filters[0].host.text'],
      ['state filter unspecified', 'POST', `${BASE}/_search`, [{ state: {} }], 'filters[0].state.state'],
    ];
    for (const [label, method, path, body, field] of cases) {
      const response = await call(method, path, body);
      expect(response.status, label).toBe(400);
      expect(violatedFields(response.body), label).toContain(field);
    }
    const id = await create({ description: 'patch bad' });
    expect(violatedFields((await call('PATCH', `${BASE}/${id}`, { port: -1 })).body)).toEqual(['smtpProvider.port']);
    const noReceiver = await call('POST', `${BASE}/${id}/_test`, {});
    expect(noReceiver.status).toBe(400);
    expect(violatedFields(noReceiver.body)).toEqual(['receiver.address']);
    const badReceiver = await call('POST', `${BASE}/${id}/_test`, { address: 'not-an-address' });
    expect(violatedFields(badReceiver.body)).toEqual(['receiver.address']);
    expect((await call('POST', `${BASE}/4711/_test`, { address: 'a@b.example' })).status).toBe(404);
  });

  it('answers 403 without iam.smtp.write and 401 without a token', async () => {
    const setup = await readSetup(node);
    const viewer = await seedMachineUser(node, {
      username: 'smtp-viewer',
      memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }],
    });
    const id = await create({ description: 'guarded' });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${BASE}/${id}`)).status).toBe(200);
    expect((await asViewer('POST', `${BASE}/_search`, [])).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, provider()],
      ['PATCH', `${BASE}/${id}`, { description: 'x' }],
      ['DELETE', `${BASE}/${id}`, undefined],
      ['POST', `${BASE}/${id}/_activate`, undefined],
      ['POST', `${BASE}/${id}/_test`, { address: 'a@b.example' }],
    ] as const) {
      const denied = await asViewer(method, path, body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.details[0].id).toBe('auth.permission_denied');
    }
    expect((await api(node, '')('GET', `${BASE}/${id}`)).status).toBe(401);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(200);
  });

  it("another instance sees none of this instance's providers; its own are there", async () => {
    const id = await create({ description: 'isolated' });
    const created = await sys('POST', '/resources/v3alpha/instances', { name: 'SMTP Other', domain: 'smtp-other.example', admin: { username: 'other-admin' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const host = { host: `smtp-other.example:${node.httpPort}` };
    const other = api(node, created.body.adminToken);
    expect((await other('GET', `${BASE}/${id}`, undefined, host)).status).toBe(404);
    expect((await other('POST', `${BASE}/${id}/_activate`, undefined, host)).status).toBe(404);
    expect((await other('POST', `${BASE}/${id}/_test`, { address: 'a@b.example' }, host)).status).toBe(404);
    const created2 = await other('POST', BASE, provider({ description: 'theirs' }), host);
    expect(created2.status).toBe(201);
    const theirs = (await other('POST', `${BASE}/_search`, [], host)).body.result.map((r: any) => r.details.id);
    expect(theirs).toEqual([created2.body.details.id]);
    // activating theirs leaves ours alone (one active provider per instance, not per node)
    expect((await call('POST', `${BASE}/${id}/_activate`)).status).toBe(200);
    expect((await other('POST', `${BASE}/${created2.body.details.id}/_activate`, undefined, host)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.smtpProvider.state).toBe('SMTP_PROVIDER_STATE_ACTIVE');
    // positive control: the owner reads it
    expect((await call('GET', `${BASE}/${id}`)).body.smtpProvider.smtpProvider.description).toBe('isolated');
    await call('POST', `${BASE}/${id}/_deactivate`);
  });

  it('serves Connect, gRPC-web and gRPC', async () => {
    const headers = { authorization: `Bearer ${node.adminToken}` };
    const connect = createClient(PlatformSMTPProviders, createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' }));
    const created = await connect.createSMTPProvider(
      { smtpProvider: { description: 'over connect', host: '127.0.0.1', port: smtp.port, tlsMode: SmtpTlsMode.NONE, user: 'tessera', password: PASSWORD, senderAddress: 'c@tessera.example' } },
      { headers },
    );
    const id = created.details!.id;
    const got = await connect.getSMTPProvider({ id }, { headers });
    expect(got.smtpProvider?.smtpProvider?.hasPassword).toBe(true);
    expect(got.smtpProvider?.smtpProvider?.description).toBe('over connect');
    await connect.patchSMTPProvider({ id, smtpProvider: { senderName: 'Connect' } }, { headers });
    const found = await connect.searchSMTPProviders({ filters: [{ filter: { case: 'inIds', value: { ids: [id] } } }] }, { headers });
    expect(found.result.map((r) => r.smtpProvider?.senderName)).toEqual(['Connect']);
    const tested = await connect.testSMTPProvider({ id, receiver: { address: 'carol@example.org' } }, { headers });
    expect(tested.success).toBe(true);
    expect(smtp.delivered.at(-1)!.to).toEqual(['carol@example.org']);

    const grpcWeb = createClient(PlatformSMTPProviders, createGrpcWebTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' }));
    const viaGrpcWeb = await grpcWeb.searchSMTPProviders({ filters: [{ filter: { case: 'inIds', value: { ids: [id] } } }] }, { headers });
    expect(viaGrpcWeb.result.map((r) => r.smtpProvider?.hasPassword)).toEqual([true]);

    const grpc = createClient(PlatformSMTPProviders, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const viaGrpc = await grpc.getSMTPProvider({ id }, { headers });
    expect(viaGrpc.smtpProvider?.smtpProvider?.senderName).toBe('Connect');
    await grpc.deleteSMTPProvider({ id }, { headers });
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(404);
  });
});

describe('SMTP providers under the default outbound policy', () => {
  let strict: TestNode;
  beforeAll(async () => {
    strict = await startTestNode({ env: { TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
  });
  afterAll(async () => {
    await strict?.stop();
    strict?.cleanup();
  });

  it('refuses a private host on create and patch (400 naming the host); a public one is accepted', async () => {
    const on = api(strict);
    for (const host of ['127.0.0.1', 'localhost', '10.1.2.3', '169.254.169.254', '[::1]']) {
      const refused = await on('POST', BASE, provider({ host }));
      expect(refused.status, host).toBe(400);
      expect(refused.body.details[0].id, host).toBe('outbound.address_refused');
      expect(violatedFields(refused.body), host).toEqual(['smtpProvider.host']);
    }
    // positive control: a public address literal is accepted on this node
    const id = await create({ host: '8.8.8.8' }, on);
    const patched = await on('PATCH', `${BASE}/${id}`, { host: '192.168.1.1' });
    expect(patched.status).toBe(400);
    expect(violatedFields(patched.body)).toEqual(['smtpProvider.host']);
    expect((await on('GET', `${BASE}/${id}`)).body.smtpProvider.smtpProvider.host).toBe('8.8.8.8');
    expect((await on('PATCH', `${BASE}/${id}`, { host: '1.1.1.1' })).status).toBe(200);
  });
});
