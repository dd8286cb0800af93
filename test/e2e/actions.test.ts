/**
 * PlatformActions over JSON/HTTP (and one call over gRPC) against a started node: targets and
 * executions CRUD, search (every TextFilterMethod, every sort column both ways, paging, limits),
 * the condition lists, bad input, 404s, 401/403, and the feature flag.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformActions } from '../../src/gen/platform/resources/action/v3alpha/action_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const T = '/resources/v3alpha/targets';
const E = '/resources/v3alpha/executions';
const ORGS = 'platform.resources.org.v3alpha.PlatformOrganizations';
const FEATURES = { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' };

let node: TestNode;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  node = await startTestNode({ env: FEATURES });
  call = api(node);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

// Port 9 (discard) refuses connections at once: executions left behind never slow other calls down.
const webhook = (name: string, extra: Record<string, unknown> = {}) => ({ name, restWebhook: { url: 'http://127.0.0.1:9/hook' }, timeout: '10s', ...extra });

async function createTargetId(body: unknown): Promise<string> {
  const created = await call('POST', T, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.details.id;
}

describe('targets', () => {
  it('creates (with a signing key shown once), reads, patches (also as a no-op), rotates the key and deletes', async () => {
    const created = await call('POST', T, { name: 'ip_allow_list', restWebhook: { url: 'https://hooks.example.com/ip_check' }, timeout: '10s', interruptOnError: true });
    expect(created.status).toBe(201);
    const id: string = created.body.details.id;
    expect(created.body.signingKey).toMatch(/^[A-Za-z0-9]{36}$/);
    const setup = await readSetup(node);
    expect(created.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_INSTANCE', id: setup.instanceId });

    const got = await call('GET', `${T}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.target).toEqual({
      details: created.body.details,
      target: { name: 'ip_allow_list', restWebhook: { url: 'https://hooks.example.com/ip_check' }, timeout: '10s', interruptOnError: true },
    });
    expect(JSON.stringify(got.body)).not.toContain(created.body.signingKey);

    const patched = await call('PATCH', `${T}/${id}`, { restRequestResponse: { url: 'https://hooks.example.com/call' }, timeout: '1.5s', isAsync: true });
    expect(patched.status).toBe(200);
    expect(patched.body.signingKey).toBeUndefined();
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    expect((await call('GET', `${T}/${id}`)).body.target.target).toEqual({
      name: 'ip_allow_list',
      restRequestResponse: { url: 'https://hooks.example.com/call' },
      timeout: '1.500s',
      isAsync: true,
    });
    const noop = await call('PATCH', `${T}/${id}`, { name: 'ip_allow_list', timeout: '1.5s' });
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('PATCH', `${T}/${id}`, {})).body.details.sequence).toBe(patched.body.details.sequence);
    const neither = await call('PATCH', `${T}/${id}`, { isAsync: false });
    expect((await call('GET', `${T}/${id}`)).body.target.target.isAsync).toBeUndefined();
    expect(BigInt(neither.body.details.sequence)).toBeGreaterThan(BigInt(patched.body.details.sequence));

    const rotated = await call('PATCH', `${T}/${id}`, { expirationSigningKey: '0s' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingKey).toMatch(/^[A-Za-z0-9]{36}$/);
    expect(rotated.body.signingKey).not.toBe(created.body.signingKey);

    expect((await call('DELETE', `${T}/${id}`)).status).toBe(200);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as [string, unknown?][]) {
      const gone = await call(method, `${T}/${id}`, body);
      expect(gone.status).toBe(404);
      expect(gone.body.details[0].id).toBe('target.not_found');
    }
    expect((await call('POST', T, webhook('ip_allow_list'))).status).toBe(201); // the name is free again
  });

  it('refuses a duplicate name with 409', async () => {
    await createTargetId(webhook('Unique Target'));
    const dup = await call('POST', T, webhook('unique target'));
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('target.name_taken');
  });

  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const count = async () => (await call('POST', `${T}/_search?query.limit=1000`, [])).body.details.totalResult;
    const before = await count();
    const cases: [string, unknown, string | undefined][] = [
      ['missing target type', { name: 'a', timeout: '1s' }, 'target.restWebhook'],
      ['empty url', { name: 'a', restWebhook: { url: '' }, timeout: '1s' }, 'target.restWebhook.url'],
      ['too long url', { name: 'a', restWebhook: { url: `https://x.example/${'a'.repeat(1000)}` }, timeout: '1s' }, 'target.restWebhook.url'],
      ['not a URI', { name: 'a', restRequestResponse: { url: 'not a uri' }, timeout: '1s' }, 'target.restRequestResponse.url'],
      ['missing timeout', { name: 'a', restWebhook: { url: 'https://x.example' } }, 'target.timeout'],
      ['zero timeout', { name: 'a', restWebhook: { url: 'https://x.example' }, timeout: '0s' }, 'target.timeout'],
      ['timeout above 270s', { name: 'a', restWebhook: { url: 'https://x.example' }, timeout: '271s' }, 'target.timeout'],
      ['missing name', { restWebhook: { url: 'https://x.example' }, timeout: '1s' }, 'target.name'],
      ['too long name', webhook('n'.repeat(201)), 'target.name'],
      ['wrong type', { name: 5, restWebhook: { url: 'https://x.example' }, timeout: '1s' }, 'target.name'],
      ['malformed duration', { name: 'a', restWebhook: { url: 'https://x.example' }, timeout: 'soon' }, 'target.timeout'],
      ['both execution types', webhook('a', { isAsync: true, interruptOnError: true }), undefined],
      ['both target types', { ...webhook('a'), restRequestResponse: { url: 'https://x.example' } }, undefined],
    ];
    for (const [label, body, field] of cases) {
      const response = await call('POST', T, body);
      expect(response.status, label).toBe(400);
      expect(response.body.code, label).toBe(3);
      if (field !== undefined) expect(violatedFields(response.body), label).toContain(field);
    }
    const patchBad = await call('PATCH', `${T}/${await createTargetId(webhook('patch-bad'))}`, { timeout: '300s', expirationSigningKey: '-1s' });
    expect(violatedFields(patchBad.body)).toEqual(expect.arrayContaining(['target.timeout', 'target.expirationSigningKey']));
    expect(await count()).toBe(String(Number(before) + 1));
  });

  describe('search', () => {
    let a: string;
    let b: string;
    let c: string;
    const ids = (body: any): string[] => (body.result ?? []).map((r: any) => r.details.id);

    beforeAll(async () => {
      a = await createTargetId({ name: 'Sort Alpha', restWebhook: { url: 'https://c.example/' }, timeout: '2s' });
      b = await createTargetId({ name: 'Sort beta', restRequestResponse: { url: 'https://a.example/' }, timeout: '3s', isAsync: true });
      c = await createTargetId({ name: 'Sort Gamma', restWebhook: { url: 'https://b.example/' }, timeout: '1s', interruptOnError: true });
      await new Promise((r) => setTimeout(r, 5));
      expect((await call('PATCH', `${T}/${a}`, { timeout: '2.5s' })).status).toBe(200); // a changed last
    });

    const mine = () => [{ inIds: { ids: [a, b, c] } }];

    it.each([
      ['TEXT_FILTER_METHOD_EQUALS', 'Sort beta', ['b']],
      ['TEXT_FILTER_METHOD_EQUALS', 'sort beta', []],
      ['TEXT_FILTER_METHOD_EQUALS_IGNORE_CASE', 'sort BETA', ['b']],
      ['TEXT_FILTER_METHOD_STARTS_WITH', 'Sort G', ['c']],
      ['TEXT_FILTER_METHOD_STARTS_WITH', 'sort g', []],
      ['TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE', 'sort g', ['c']],
      ['TEXT_FILTER_METHOD_CONTAINS', 'lph', ['a']],
      ['TEXT_FILTER_METHOD_CONTAINS', 'LPH', []],
      ['TEXT_FILTER_METHOD_CONTAINS_IGNORE_CASE', 'LPH', ['a']],
      ['TEXT_FILTER_METHOD_ENDS_WITH', 'mma', ['c']],
      ['TEXT_FILTER_METHOD_ENDS_WITH', 'MMA', []],
      ['TEXT_FILTER_METHOD_ENDS_WITH_IGNORE_CASE', 'ETA', ['b']],
    ])('filters names with %s %j', async (method, name, expected) => {
      const byName = { a, b, c } as Record<string, string>;
      const found = await call('POST', `${T}/_search`, [...mine(), { name: { name, method } }]);
      expect(found.status).toBe(200);
      expect(ids(found.body)).toEqual(expected.map((k) => byName[k]));
    });

    it.each([
      ['TARGET_FIELD_NAME_ID', 'abc'],
      ['TARGET_FIELD_NAME_CREATION_DATE', 'abc'],
      ['TARGET_FIELD_NAME_CHANGE_DATE', 'bca'],
      ['TARGET_FIELD_NAME_NAME', 'acb'],
      ['TARGET_FIELD_NAME_TARGET_TYPE', 'bac'],
      ['TARGET_FIELD_NAME_URL', 'bca'],
      ['TARGET_FIELD_NAME_TIMEOUT', 'cab'],
      ['TARGET_FIELD_NAME_ASYNC', 'acb'],
      ['TARGET_FIELD_NAME_INTERRUPT_ON_ERROR', 'abc'],
    ])('sorts by %s both ways', async (column, order) => {
      const byKey = { a, b, c } as Record<string, string>;
      const expected = [...order].map((k) => byKey[k]);
      const asc = await call('POST', `${T}/_search?sortingColumn=${column}&query.asc=true`, mine());
      expect(asc.body.sortingColumn).toBe(column);
      expect(ids(asc.body)).toEqual(expected);
      const desc = await call('POST', `${T}/_search?sortingColumn=${column}`, mine());
      expect(ids(desc.body)).toEqual([...expected].reverse());
    });

    it('sorts by creation date descending by default and pages with offset', async () => {
      expect(ids((await call('POST', `${T}/_search`, mine())).body)).toEqual([c, b, a]);
      const page = await call('POST', `${T}/_search?sortingColumn=TARGET_FIELD_NAME_NAME&query.asc=true&query.offset=1&query.limit=1`, mine());
      expect(ids(page.body)).toEqual([c]);
      expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
      expect(page.body.details.endOfList).toBeUndefined();
      const last = await call('POST', `${T}/_search?sortingColumn=4&query.asc=true&query.offset=2&query.limit=1`, mine());
      expect(ids(last.body)).toEqual([b]);
      expect(last.body.details.endOfList).toBe(true);
      expect(BigInt(last.body.details.processedSequence)).toBeGreaterThan(0n);
    });

    it('rejects invalid list queries and filters', async () => {
      for (const [path, body, field] of [
        [`${T}/_search?query.limit=1001`, [], 'query.limit'],
        [`${T}/_search?sortingColumn=TARGET_FIELD_NAME_NOPE`, [], 'sortingColumn'],
        [`${T}/_search`, [{ name: { name: 'x'.repeat(201) } }], 'filters[0].name.name'],
        [`${T}/_search`, [{ name: { name: 'x', method: 'TEXT_FILTER_METHOD_NOPE' } }], 'filters[0].name.method'],
        [`${T}/_search`, [{}], 'filters[0]'],
      ] as [string, unknown, string][]) {
        const response = await call('POST', path, body);
        expect(response.status, path).toBe(400);
        expect(violatedFields(response.body), path).toContain(field);
      }
    });
  });
});

describe('executions', () => {
  let t1: string;
  let t2: string;
  const svc = { request: { service: ORGS } };
  const method = { request: { method: `/${ORGS}/GetOrganization` } };
  const ids = (body: any): string[] => (body.result ?? []).map((r: any) => r.details.id);

  beforeAll(async () => {
    t1 = await createTargetId(webhook('exec-t1'));
    t2 = await createTargetId(webhook('exec-t2'));
  });

  it('puts (201, then 200), searches, and deletes by a percent-encoded id', async () => {
    const first = await call('POST', E, { condition: svc, targets: [t1] });
    expect(first.status).toBe(201);
    expect(first.body.details.id).toBe(`request/${ORGS}`);
    const same = await call('POST', E, { condition: svc, targets: [t1] });
    expect(same.status).toBe(200);
    expect(same.body.details.sequence).toBe(first.body.details.sequence);
    const updated = await call('POST', E, { condition: svc, targets: [t1, t2] });
    expect(updated.status).toBe(200);
    expect(BigInt(updated.body.details.sequence)).toBeGreaterThan(BigInt(first.body.details.sequence));

    const found = await call('POST', `${E}/_search`, [{ inConditions: { conditions: [svc] } }]);
    expect(found.body.result).toEqual([{ details: updated.body.details, execution: { condition: svc, targets: [t1, t2] } }]);

    const deleted = await call('DELETE', `${E}/${encodeURIComponent(`request/${ORGS}`)}`);
    expect(deleted.status).toBe(200);
    const again = await call('DELETE', `${E}/${encodeURIComponent(`request/${ORGS}`)}`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('execution.not_found');
  });

  it('answers 404 for an id naming no execution, whatever its shape (issue #12 item 15)', async () => {
    for (const id of ['nonsense', 'request/platform.nope.Service', 'request/', 'event/no.such.event', 'function/nope', 'x'.repeat(1200), `request/${ORGS}/NoSuchMethod`]) {
      const response = await call('DELETE', `${E}/${encodeURIComponent(id)}`);
      expect(response.status, id).toBe(404);
      expect(response.body.details[0].id, id).toBe('execution.not_found');
    }
  });

  it('answers a raw "/" inside an execution id with a 404 saying the id must be percent-encoded', async () => {
    for (const path of [`${E}/request/${ORGS}`, `${E}/request/${ORGS}/GetOrganization`]) {
      const response = await call('DELETE', path);
      expect(response.status).toBe(404);
      expect(response.body.details[0].id).toBe('execution.id_not_encoded');
      expect(response.body.message).toContain('percent-encoded');
    }
    expect((await call('GET', `${E}/functions/x`)).body.details?.[0]?.id).toBeUndefined(); // other paths keep the plain 404
  });

  it('filters by condition, type, target and include; hides executions without targets or includes', async () => {
    const put = async (body: unknown) => expect((await call('POST', E, body)).status).toBe(201);
    await put({ condition: method, targets: [t1] });
    await put({ condition: { response: { all: true } }, targets: [t2] });
    await put({ condition: { event: { group: 'org' } }, targets: [t2] });
    await put({ condition: { function: 'preuserinfo' }, targets: [t1] });
    await put({ condition: { request: { all: true } }, targets: [], includes: [`request/${ORGS}/GetOrganization`] });
    await put({ condition: { event: { event: 'org.removed' } }, targets: [] }); // no-op: hidden

    const all = await call('POST', `${E}/_search?query.asc=true`, []);
    expect(ids(all.body)).toEqual([`request/${ORGS}/GetOrganization`, 'response', 'event/org.*', 'function/preuserinfo', 'request']);
    expect(ids((await call('POST', `${E}/_search`, [])).body)).toEqual(['request', 'function/preuserinfo', 'event/org.*', 'response', `request/${ORGS}/GetOrganization`]);
    const page = await call('POST', `${E}/_search?query.asc=true&query.offset=1&query.limit=2`, []);
    expect(ids(page.body)).toEqual(['response', 'event/org.*']);
    expect(page.body.details).toMatchObject({ appliedLimit: 2, totalResult: '5' });

    const typed = async (type: string) => ids((await call('POST', `${E}/_search`, [{ executionType: { type } }])).body);
    expect(await typed('EXECUTION_TYPE_REQUEST')).toEqual(['request', `request/${ORGS}/GetOrganization`]);
    expect(await typed('EXECUTION_TYPE_RESPONSE')).toEqual(['response']);
    expect(await typed('EXECUTION_TYPE_EVENT')).toEqual(['event/org.*']);
    expect(await typed('EXECUTION_TYPE_FUNCTION')).toEqual(['function/preuserinfo']);
    expect(ids((await call('POST', `${E}/_search`, [{ target: { id: t2 } }])).body)).toEqual(['event/org.*', 'response']);
    const byInclude = await call('POST', `${E}/_search`, [{ include: { include: `request./${ORGS}/GetOrganization` } }]);
    expect(ids(byInclude.body)).toEqual(['request']);
    const conditions = [{ event: { group: 'org.*' } }, { function: 'preuserinfo' }];
    expect(ids((await call('POST', `${E}/_search`, [{ inConditions: { conditions } }])).body)).toEqual(['function/preuserinfo', 'event/org.*']);

    // an included execution cannot be deleted; the includer can
    const included = await call('DELETE', `${E}/${encodeURIComponent(`request/${ORGS}/GetOrganization`)}`);
    expect(included.status).toBe(400);
    expect(included.body).toMatchObject({ code: 9, details: [{ id: 'execution.included' }] });
    expect((await call('DELETE', `${E}/request`)).status).toBe(200);
    expect((await call('DELETE', `${E}/request.${encodeURIComponent(`/${ORGS}/GetOrganization`)}`)).status).toBe(200); // dotted alias
    for (const id of ['response', 'event/org.*', 'function/preuserinfo']) expect((await call('DELETE', `${E}/${encodeURIComponent(id)}`)).status).toBe(200);
  });

  it('removes a deleted target from every execution', async () => {
    const t3 = await createTargetId(webhook('exec-t3'));
    await call('POST', E, { condition: { response: { service: ORGS } }, targets: [t3, t1] });
    await call('POST', E, { condition: { function: 'preaccesstoken' }, targets: [t3] });
    expect((await call('DELETE', `${T}/${t3}`)).status).toBe(200);
    expect((await call('POST', `${E}/_search`, [{ target: { id: t3 } }])).body.result).toBeUndefined();
    const left = await call('POST', `${E}/_search`, [{ inConditions: { conditions: [{ response: { service: ORGS } }] } }]);
    expect(left.body.result[0].execution.targets).toEqual([t1]);
  });

  it('checks targets, includes and conditions', async () => {
    const cases: [string, unknown, number, string][] = [
      ['unknown target', { condition: svc, targets: ['4242'] }, 404, 'target.not_found'],
      ['unknown include', { condition: svc, includes: ['request/nope.Svc'] }, 404, 'execution.include_not_found'],
      ['unknown method', { condition: { request: { method: '/nope.Svc/M' } }, targets: [t1] }, 404, 'execution.condition_invalid'],
      ['unknown service', { condition: { response: { service: 'nope.Svc' } }, targets: [t1] }, 404, 'execution.condition_invalid'],
      ['unknown function', { condition: { function: 'presamlresponse' }, targets: [t1] }, 404, 'execution.condition_invalid'],
      ['self include', { condition: { response: { all: true } }, includes: ['response'] }, 400, 'execution.circular_include'],
      ['include of another type', { condition: svc, includes: ['function/preaccesstoken'] }, 400, 'execution.include_type_mismatch'],
      ['no condition', { targets: [t1] }, 400, 'request.invalid'],
      ['empty condition', { condition: { request: {} }, targets: [t1] }, 400, 'request.invalid'],
      ['all false', { condition: { event: { all: false } }, targets: [t1] }, 400, 'request.invalid'],
      ['too long event', { condition: { event: { event: 'e'.repeat(1001) } }, targets: [t1] }, 400, 'request.invalid'],
      ['malformed method', { condition: { request: { method: 'GetOrganization' } }, targets: [t1] }, 400, 'request.invalid'],
      ['repeated target', { condition: svc, targets: [t1, t1] }, 400, 'request.invalid'],
    ];
    for (const [label, body, status, code] of cases) {
      const response = await call('POST', E, body);
      expect(response.status, label).toBe(status);
      expect(response.body.details[0].id, label).toBe(code);
    }
    const cycleA = await call('POST', E, { condition: { event: { event: 'a.b' } }, targets: [t1] });
    expect(cycleA.status).toBe(201);
    expect((await call('POST', E, { condition: { event: { event: 'c.d' } }, includes: ['event/a.b'] })).status).toBe(201);
    const cycle = await call('POST', E, { condition: { event: { event: 'a.b' } }, targets: [t1], includes: ['event.c.d'] });
    expect(cycle.status).toBe(400);
    expect(cycle.body.details[0].id).toBe('execution.circular_include');
    expect((await call('POST', `${E}/_search?query.limit=1001`, [])).status).toBe(400);
    expect(violatedFields((await call('POST', `${E}/_search`, [{ executionType: {} }])).body)).toContain('filters[0].executionType.type');
  });

  it('lists the functions, methods and services this node serves', async () => {
    expect((await call('GET', `${E}/functions`)).body).toEqual({ functions: ['preaccesstoken', 'preuserinfo'] });
    const { methods } = (await call('GET', `${E}/methods`)).body;
    const { services } = (await call('GET', `${E}/services`)).body;
    expect(methods).toEqual([...methods].sort());
    expect(services).toEqual([...services].sort());
    expect(methods).toContain('/platform.resources.action.v3alpha.PlatformActions/PutExecution');
    expect(methods).toContain(`/${ORGS}/CreateOrganization`);
    expect(services).toEqual(expect.arrayContaining(['platform.resources.action.v3alpha.PlatformActions', ORGS]));
    for (const m of methods) expect(services).toContain(m.split('/')[1]);
  });
});

describe('access', () => {
  it('answers 401 without a token and 403 without the permission', async () => {
    expect((await api(node, '')('GET', `${E}/functions`)).status).toBe(401);
    const setup = await readSetup(node);
    const target = await createTargetId(webhook('access-target'));
    const viewer = await seedMachineUser(node, {
      username: 'actions-viewer',
      memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }],
    });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${T}/${target}`)).status).toBe(200);
    expect((await asViewer('POST', `${T}/_search`, [])).status).toBe(200);
    expect((await asViewer('POST', `${E}/_search`, [])).status).toBe(200);
    expect((await asViewer('GET', `${E}/methods`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', T, webhook('viewer-made')],
      ['PATCH', `${T}/${target}`, { name: 'x' }],
      ['DELETE', `${T}/${target}`],
      ['POST', E, { condition: { request: { all: true } }, targets: [target] }],
      ['DELETE', `${E}/request`],
    ] as [string, string, unknown?][]) {
      const denied = await asViewer(method, path, body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.code).toBe(7);
    }
    const orgOwner = await seedMachineUser(node, {
      username: 'actions-org-owner',
      memberships: [{ contextType: 'org', contextId: setup.orgId, roles: ['ORG_OWNER'] }],
    });
    const asOrgOwner = api(node, orgOwner.token);
    for (const [method, path] of [['GET', `${T}/${target}`], ['POST', `${E}/_search`], ['GET', `${E}/functions`]]) {
      expect((await asOrgOwner(method!, path!, method === 'POST' ? [] : undefined)).status, path).toBe(403);
    }
  });
});

describe('gRPC', () => {
  it('creates and reads a target and puts an execution', async () => {
    const client = createClient(PlatformActions, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const auth = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const created = await client.createTarget(
      { target: { name: 'grpc-target', targetType: { case: 'restWebhook', value: { url: 'https://x.example/' } }, timeout: { seconds: 5n, nanos: 0 } } },
      auth,
    );
    expect(created.signingKey).toHaveLength(36);
    const got = await client.getTarget({ id: created.details!.id }, auth);
    expect(got.target?.target?.name).toBe('grpc-target');
    const put = await client.putExecution(
      { execution: { condition: { conditionType: { case: 'function', value: 'preaccesstoken' } }, targets: [created.details!.id] } },
      auth,
    );
    expect(put.details?.id).toBe('function/preaccesstoken');
  });
});

describe('feature flag', () => {
  it('answers 400 failed_precondition feature.disabled while multitenancy_resources_api is off', async () => {
    const plain = await startTestNode();
    try {
      for (const [method, path, body] of [
        ['POST', T, webhook('x')],
        ['POST', `${T}/_search`, []],
        ['POST', `${E}/_search`, []],
        ['GET', `${E}/functions`],
      ] as [string, string, unknown?][]) {
        const response = await api(plain)(method, path, body);
        expect(response.status, path).toBe(400);
        expect(response.body.code).toBe(9);
        expect(response.body.details[0].id).toBe('feature.disabled');
      }
    } finally {
      await plain.stop();
      plain.cleanup();
    }
  });
});
