/**
 * PlatformIdentityProviders over JSON/HTTP (and one gRPC call) against a started node: forge and
 * forge self-hosted CRUD, search (filters, every TextFilterMethod, sort both ways, paging,
 * limits), reusable-resource semantics (org policy, read-only config in a child context, the
 * state-policy matrix), secret handling, feature flag and permissions.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformIdentityProviders } from '../../src/gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const I = '/resources/v3alpha/idps';
const FEATURES = { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' };
const SECRET = 'forge-secret-value-42';

let node: TestNode;
let call: ReturnType<typeof api>;
let instanceId: string;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  node = await startTestNode({ env: FEATURES });
  call = api(node);
  instanceId = (await readSetup(node)).instanceId;
  orgA = (await call('POST', '/resources/v3alpha/organizations', { name: 'IDP Org A' })).body.details.id;
  orgB = (await call('POST', '/resources/v3alpha/organizations', { name: 'IDP Org B' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const forge = (name: string, extra: Record<string, unknown> = {}) => ({
  idp: { name, options: { isManualLinkingAllowed: true, isAutoUpdate: true, autoLinking: 'AUTO_LINKING_OPTION_EMAIL' }, ...extra },
  config: { clientId: `client-${name}`, clientSecret: SECRET, scopes: ['openid', 'profile', 'email'] },
});

async function createIdp(body: unknown, query = '', path = `${I}/forge`): Promise<string> {
  const created = await call('POST', `${path}${query}`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.details.id;
}

async function search(filters: unknown[], query = ''): Promise<any> {
  const response = await call('POST', `${I}/_search${query}`, filters);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('forge IDPs', () => {
  it('creates, reads (never the secret), patches (also as a no-op) and deletes', async () => {
    const created = await call('POST', `${I}/forge`, forge('Forge CRUD'));
    expect(created.status).toBe(201);
    const id: string = created.body.details.id;
    expect(created.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_INSTANCE', id: instanceId });

    const got = await call('GET', `${I}/forge/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.idp).toEqual({
      details: created.body.details,
      state: 'EFFECTIVE_STATE_ACTIVE',
      type: 'PROVIDER_TYPE_FORGE',
      idp: {
        idp: { name: 'Forge CRUD', statePolicy: 'STATE_POLICY_ACTIVATE', options: { isManualLinkingAllowed: true, isAutoUpdate: true, autoLinking: 'AUTO_LINKING_OPTION_EMAIL' } },
        config: { clientId: 'client-Forge CRUD', scopes: ['openid', 'profile', 'email'] },
      },
    });
    expect(JSON.stringify(got.body)).not.toContain(SECRET);

    const patched = await call('PATCH', `${I}/forge/${id}`, { idp: { name: 'Forge Renamed', statePolicy: 'STATE_POLICY_DEACTIVATE' }, config: { clientId: 'new-client', clientSecret: '' } });
    expect(patched.status).toBe(200);
    const sequence = patched.body.details.sequence;
    const noop = await call('PATCH', `${I}/forge/${id}`, { idp: { name: 'Forge Renamed' }, config: { clientId: 'new-client', scopes: [] } });
    expect(noop.status).toBe(200);
    expect(noop.body.details.sequence).toBe(sequence);
    const after = (await call('GET', `${I}/forge/${id}`)).body.idp;
    expect(after.state).toBe('EFFECTIVE_STATE_INACTIVE');
    expect(after.idp.idp.name).toBe('Forge Renamed');
    expect(after.idp.idp.statePolicy).toBe('STATE_POLICY_DEACTIVATE');
    expect(after.idp.config).toEqual({ clientId: 'new-client', scopes: ['openid', 'profile', 'email'] });

    const deleted = await call('DELETE', `${I}/${id}`);
    expect(deleted.status).toBe(200);
    for (const [method, path] of [['GET', `${I}/forge/${id}`], ['DELETE', `${I}/${id}`], ['PATCH', `${I}/forge/${id}`]]) {
      const gone = await call(method!, path!, method === 'PATCH' ? { idp: { name: 'x' } } : undefined);
      expect(gone.status, `${method} ${path}`).toBe(404);
      expect(gone.body.details[0].id).toBe('idp.not_found');
    }
  });

  it('defaults the scopes to openid profile email and an absent policy to activate', async () => {
    const id = await createIdp({ idp: { name: 'Defaults' }, config: { clientId: 'c', clientSecret: 's' } });
    const got = (await call('GET', `${I}/forge/${id}`)).body.idp;
    expect(got.state).toBe('EFFECTIVE_STATE_ACTIVE');
    expect(got.idp.idp.statePolicy).toBe('STATE_POLICY_ACTIVATE');
    expect(got.idp.config).toEqual({ clientId: 'c' });
  });

  it('rejects bad input naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ idp: { name: '' }, config: { clientId: 'c', clientSecret: 's' } }, 'idp.idp.name'],
      [{ idp: { name: 'x'.repeat(201) }, config: { clientId: 'c', clientSecret: 's' } }, 'idp.idp.name'],
      [{ idp: { name: 'n' }, config: { clientSecret: 's' } }, 'idp.config.clientId'],
      [{ idp: { name: 'n' }, config: { clientId: 'c' } }, 'idp.config.clientSecret'],
      [{ idp: { name: 'n' } }, 'idp.config'],
      [{ config: { clientId: 'c', clientSecret: 's' } }, 'idp.idp'],
      [{ idp: { name: 'n' }, config: { clientId: 'c', clientSecret: 's', scopes: ['bad scope'] } }, 'idp.config.scopes[0]'],
    ];
    for (const [body, field] of cases) {
      const response = await call('POST', `${I}/forge`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(violatedFields(response.body)).toContain(field);
    }
    const badEnum = await call('POST', `${I}/forge`, { idp: { name: 'n', statePolicy: 'STATE_POLICY_NOPE' }, config: { clientId: 'c', clientSecret: 's' } });
    expect(badEnum.status).toBe(400);
    const wrongType = await call('POST', `${I}/forge`, { idp: { name: 7 }, config: { clientId: 'c', clientSecret: 's' } });
    expect(wrongType.status).toBe(400);
    expect((await call('GET', `${I}/forge/${'x'.repeat(201)}`)).status).toBe(400);
  });
});

describe('forge self-hosted IDPs', () => {
  it('creates with an issuer, reads it back, patches it; the forge path does not serve it', async () => {
    const body = { idp: { name: 'Self Hosted' }, config: { clientId: 'sh', clientSecret: SECRET, issuer: 'https://forge.example.com/' } };
    const id = await createIdp(body, '', `${I}/forge_self_hosted`);
    const got = await call('GET', `${I}/forge_self_hosted/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.idp.type).toBe('PROVIDER_TYPE_FORGE_SELF_HOSTED');
    expect(got.body.idp.idp.config).toEqual({ clientId: 'sh', issuer: 'https://forge.example.com' });
    expect(JSON.stringify(got.body)).not.toContain(SECRET);
    expect((await call('GET', `${I}/forge/${id}`)).status).toBe(404);
    expect((await call('PATCH', `${I}/forge_self_hosted/${id}`, { config: { issuer: 'https://git.example.org' } })).status).toBe(200);
    expect((await call('GET', `${I}/forge_self_hosted/${id}`)).body.idp.idp.config.issuer).toBe('https://git.example.org');
    for (const issuer of ['', 'not a url', 'ftp://x.example', `https://${'a'.repeat(200)}.example`]) {
      const bad = await call('POST', `${I}/forge_self_hosted`, { ...body, config: { ...body.config, issuer } });
      expect(bad.status, issuer).toBe(400);
      expect(violatedFields(bad.body)).toContain('idp.config.issuer');
    }
    expect((await call('DELETE', `${I}/${id}`)).status).toBe(200);
  });
});

describe('reusable resource semantics', () => {
  it('an instance IDP is visible in an org with policy inherit and the instance as parent', async () => {
    const id = await createIdp(forge('Shared'));
    const got = await call('GET', `${I}/forge/${id}?ctx.orgId=${orgA}`);
    expect(got.status).toBe(200);
    expect(got.body.idp.parent).toEqual({ parent: { type: 'OWNER_TYPE_INSTANCE', id: instanceId }, state: 'EFFECTIVE_STATE_ACTIVE' });
    expect(got.body.idp.state).toBe('EFFECTIVE_STATE_ACTIVE');
    expect(got.body.idp.idp.idp.statePolicy).toBe('STATE_POLICY_INHERIT');
    expect(got.body.idp.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_INSTANCE', id: instanceId });
    expect(got.body.idp.idp.config.clientId).toBe('client-Shared');
  });

  it('refuses configuration changes and deletes from a child context (403) but lets it set its policy', async () => {
    const id = await createIdp(forge('Child Refused'));
    for (const body of [{ idp: { name: 'Hijacked' } }, { idp: { options: { isAutoCreation: true } } }, { config: { clientId: 'other' } }, { idp: { name: 'x', statePolicy: 'STATE_POLICY_ACTIVATE' } }]) {
      const refused = await call('PATCH', `${I}/forge/${id}?ctx.orgId=${orgA}`, body);
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.body.details[0].id).toBe('idp.inherited_read_only');
    }
    expect((await call('DELETE', `${I}/${id}?ctx.orgId=${orgA}`)).status).toBe(403);
    const set = await call('PATCH', `${I}/forge/${id}?ctx.orgId=${orgA}`, { idp: { statePolicy: 'STATE_POLICY_DEACTIVATE' } });
    expect(set.status).toBe(200);
    expect(set.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_INSTANCE', id: instanceId });
    const again = await call('PATCH', `${I}/forge/${id}?ctx.orgId=${orgA}`, { idp: { statePolicy: 'STATE_POLICY_DEACTIVATE' } });
    expect(again.body.details.sequence).toBe(set.body.details.sequence);
    expect((await call('GET', `${I}/forge/${id}?ctx.orgId=${orgA}`)).body.idp.state).toBe('EFFECTIVE_STATE_INACTIVE');
    expect((await call('GET', `${I}/forge/${id}?ctx.orgId=${orgB}`)).body.idp.state).toBe('EFFECTIVE_STATE_ACTIVE');
    expect((await call('GET', `${I}/forge/${id}`)).body.idp.idp.idp.name).toBe('Child Refused');
  });

  const matrix: [string, string, string][] = [
    ['STATE_POLICY_ACTIVATE', 'STATE_POLICY_ACTIVATE', 'EFFECTIVE_STATE_ACTIVE'],
    ['STATE_POLICY_ACTIVATE', 'STATE_POLICY_DEACTIVATE', 'EFFECTIVE_STATE_INACTIVE'],
    ['STATE_POLICY_ACTIVATE', 'STATE_POLICY_INHERIT', 'EFFECTIVE_STATE_ACTIVE'],
    ['STATE_POLICY_DEACTIVATE', 'STATE_POLICY_ACTIVATE', 'EFFECTIVE_STATE_ACTIVE'],
    ['STATE_POLICY_DEACTIVATE', 'STATE_POLICY_DEACTIVATE', 'EFFECTIVE_STATE_INACTIVE'],
    ['STATE_POLICY_DEACTIVATE', 'STATE_POLICY_INHERIT', 'EFFECTIVE_STATE_INACTIVE'],
  ];
  it.each(matrix)('instance %s × org %s → %s (seen from the org, in get and search)', async (instancePolicy, orgPolicy, expected) => {
    const id = await createIdp(forge(`Matrix ${instancePolicy} ${orgPolicy}`, { statePolicy: instancePolicy }));
    expect((await call('PATCH', `${I}/forge/${id}?ctx.orgId=${orgA}`, { idp: { statePolicy: orgPolicy } })).status).toBe(200);
    const got = (await call('GET', `${I}/forge/${id}?ctx.orgId=${orgA}`)).body.idp;
    expect(got.state).toBe(expected);
    expect(got.idp.idp.statePolicy).toBe(orgPolicy);
    expect(got.parent.state).toBe(instancePolicy === 'STATE_POLICY_ACTIVATE' ? 'EFFECTIVE_STATE_ACTIVE' : 'EFFECTIVE_STATE_INACTIVE');
    const found = (await search([{ id: { id } }], `?ctx.orgId=${orgA}`)).result;
    expect(found.map((r: any) => r.state)).toEqual([expected]);
    expect(found[0].parent.parent).toEqual({ type: 'OWNER_TYPE_INSTANCE', id: instanceId });
  });

  it('org IDPs belong to their org: visible there and from the instance, not from another org', async () => {
    const id = await createIdp(forge('Org A Only', { statePolicy: 'STATE_POLICY_DEACTIVATE' }), `?ctx.orgId=${orgA}`);
    const own = (await call('GET', `${I}/forge/${id}?ctx.orgId=${orgA}`)).body.idp;
    expect(own.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_ORG', id: orgA });
    expect(own.parent).toBeUndefined();
    expect(own.state).toBe('EFFECTIVE_STATE_INACTIVE');
    expect((await call('GET', `${I}/forge/${id}`)).status).toBe(200);
    expect((await call('GET', `${I}/forge/${id}?ctx.orgId=${orgB}`)).status).toBe(404);
    expect((await call('PATCH', `${I}/forge/${id}?ctx.orgId=${orgA}`, { idp: { name: 'Org A Renamed' } })).status).toBe(200);
    const inB = (await search([], `?ctx.orgId=${orgB}&query.limit=1000`)).result.map((r: any) => r.details.id);
    expect(inB).not.toContain(id);
    const inInstance = (await search([], '?query.limit=1000')).result.map((r: any) => r.details.id);
    expect(inInstance).toContain(id);
  });
});

describe('search', () => {
  const prefix = 'Srch';
  let ids: string[];
  beforeAll(async () => {
    ids = [];
    for (const name of [`${prefix} Alpha`, `${prefix} beta`, `${prefix} Gamma`]) ids.push(await createIdp(forge(name)));
    await call('PATCH', `${I}/forge/${ids[1]}`, { idp: { statePolicy: 'STATE_POLICY_DEACTIVATE' } });
  });
  const names = async (filters: unknown[], query = '') =>
    (await search(filters, query)).result.map((r: any) => r.idp.name).filter((n: string) => n.startsWith(prefix) || n.toLowerCase().startsWith('srch'));

  it('filters by name with every TextFilterMethod', async () => {
    const cases: [string, string, string[]][] = [
      ['TEXT_FILTER_METHOD_EQUALS', `${prefix} Alpha`, [`${prefix} Alpha`]],
      ['TEXT_FILTER_METHOD_EQUALS_IGNORE_CASE', `${prefix.toLowerCase()} alpha`, [`${prefix} Alpha`]],
      ['TEXT_FILTER_METHOD_STARTS_WITH', `${prefix} G`, [`${prefix} Gamma`]],
      ['TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE', `${prefix.toLowerCase()} b`, [`${prefix} beta`]],
      ['TEXT_FILTER_METHOD_CONTAINS', 'amm', [`${prefix} Gamma`]],
      ['TEXT_FILTER_METHOD_CONTAINS_IGNORE_CASE', 'ALPH', [`${prefix} Alpha`]],
      ['TEXT_FILTER_METHOD_ENDS_WITH', 'eta', [`${prefix} beta`]],
      ['TEXT_FILTER_METHOD_ENDS_WITH_IGNORE_CASE', 'GAMMA', [`${prefix} Gamma`]],
    ];
    for (const [method, name, expected] of cases) {
      expect(await names([{ name: { name, method } }], '?query.limit=1000'), method).toEqual(expected);
    }
  });

  it('filters by id and by state (ANDed)', async () => {
    expect(await names([{ id: { id: ids[2] } }])).toEqual([`${prefix} Gamma`]);
    const starts = { name: { name: prefix, method: 'TEXT_FILTER_METHOD_STARTS_WITH' } };
    expect(await names([starts, { state: { state: 'EFFECTIVE_STATE_INACTIVE' } }], '?query.limit=1000')).toEqual([`${prefix} beta`]);
    expect((await names([starts, { state: { state: 'EFFECTIVE_STATE_ACTIVE' } }], '?query.limit=1000&sortingColumn=IDP_FIELD_NAME_NAME&query.asc=true'))).toEqual([`${prefix} Alpha`, `${prefix} Gamma`]);
  });

  it('sorts by name and by creation date in both directions and pages', async () => {
    const starts = [{ name: { name: prefix, method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }];
    const asc = await search(starts, '?sortingColumn=IDP_FIELD_NAME_NAME&query.asc=true');
    expect(asc.sortingColumn).toBe('IDP_FIELD_NAME_NAME');
    expect(asc.result.map((r: any) => r.idp.name)).toEqual([`${prefix} Alpha`, `${prefix} Gamma`, `${prefix} beta`]);
    const desc = await search(starts, '?sortingColumn=IDP_FIELD_NAME_NAME');
    expect(desc.result.map((r: any) => r.idp.name)).toEqual([`${prefix} beta`, `${prefix} Gamma`, `${prefix} Alpha`]);
    expect((await search(starts, '?query.asc=true')).result.map((r: any) => r.details.id)).toEqual(ids);
    expect((await search(starts)).result.map((r: any) => r.details.id)).toEqual([...ids].reverse());
    const page = await search(starts, '?query.asc=true&query.offset=1&query.limit=1');
    expect(page.result.map((r: any) => r.details.id)).toEqual([ids[1]]);
    expect(page.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    expect(page.details.endOfList).toBeUndefined();
    expect(page.result[0].type).toBe('PROVIDER_TYPE_FORGE');
    expect(page.result[0].idp.config).toBeUndefined();
  });

  it('rejects limit 1001 and bad filters', async () => {
    const over = await call('POST', `${I}/_search?query.limit=1001`, []);
    expect(over.status).toBe(400);
    expect(over.body.code).toBe(3);
    for (const [filter, field] of [
      [{ name: { name: 'x'.repeat(201) } }, 'filters[0].name.name'],
      [{ id: { id: 'x'.repeat(201) } }, 'filters[0].id.id'],
      [{ state: {} }, 'filters[0].state.state'],
      [{ name: { name: 'a', method: 99 } }, 'filters[0].name.method'],
    ] as [unknown, string][]) {
      const bad = await call('POST', `${I}/_search`, [filter]);
      expect(bad.status, field).toBe(400);
      expect(violatedFields(bad.body)).toContain(field);
    }
  });
});

describe('access', () => {
  it('answers 403 without the permission; an org owner manages its own org only', async () => {
    const id = await createIdp(forge('Access'));
    const viewer = await seedMachineUser(node, { username: 'idp-viewer', memberships: [{ contextType: 'instance', contextId: instanceId, roles: ['IAM_OWNER_VIEWER'] }] });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${I}/forge/${id}`)).status).toBe(200);
    expect((await asViewer('POST', `${I}/_search`, [])).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', `${I}/forge`, forge('Viewer Made')],
      ['PATCH', `${I}/forge/${id}`, { idp: { name: 'x' } }],
      ['DELETE', `${I}/${id}`],
    ] as [string, string, unknown?][]) {
      const denied = await asViewer(method, path, body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.code).toBe(7);
    }
    const owner = await seedMachineUser(node, { username: 'idp-org-owner', memberships: [{ contextType: 'org', contextId: orgA, roles: ['ORG_OWNER'] }] });
    const asOrgOwner = api(node, owner.token);
    expect((await asOrgOwner('GET', `${I}/forge/${id}`)).status).toBe(403);
    expect((await asOrgOwner('GET', `${I}/forge/${id}?ctx.orgId=${orgA}`)).status).toBe(200);
    expect((await asOrgOwner('PATCH', `${I}/forge/${id}?ctx.orgId=${orgA}`, { idp: { statePolicy: 'STATE_POLICY_ACTIVATE' } })).status).toBe(200);
    expect((await asOrgOwner('GET', `${I}/forge/${id}?ctx.orgId=${orgB}`)).status).toBe(403);
    const own = await asOrgOwner('POST', `${I}/forge?ctx.orgId=${orgA}`, forge('Org Owner Made'));
    expect(own.status).toBe(201);
    expect((await asOrgOwner('GET', `${I}/forge/${own.body.details.id}`)).status).toBe(200);
    expect((await asOrgOwner('POST', `${I}/forge`, forge('Instance By Org Owner'))).status).toBe(403);
  });
});

describe('gRPC', () => {
  it('creates and reads a forge IDP', async () => {
    const client = createClient(PlatformIdentityProviders, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const auth = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const created = await client.createForgeIDP({ idp: { idp: { name: 'gRPC Forge' }, config: { clientId: 'g', clientSecret: SECRET } } }, auth);
    const got = await client.getForgeIDP({ id: created.details!.id }, auth);
    expect(got.idp?.idp?.idp?.name).toBe('gRPC Forge');
    expect(got.idp?.idp?.config?.clientSecret).toBe('');
  });
});

describe('feature flag', () => {
  it('answers 400 code 9 feature.disabled while multitenancy_resources_api is off', async () => {
    const id = await createIdp(forge('Feature'));
    expect((await call('PATCH', '/settings/v3alpha/features', { multitenancy_resources_api: false })).status).toBe(200);
    try {
      for (const [method, path, body] of [
        ['POST', `${I}/forge`, forge('Off')],
        ['GET', `${I}/forge/${id}`],
        ['PATCH', `${I}/forge/${id}`, { idp: { name: 'x' } }],
        ['DELETE', `${I}/${id}`],
        ['POST', `${I}/_search`, []],
      ] as [string, string, unknown?][]) {
        const response = await call(method, path, body);
        expect(response.status, `${method} ${path}`).toBe(400);
        expect(response.body.code).toBe(9);
        expect(response.body.details[0].id).toBe('feature.disabled');
      }
    } finally {
      await call('PATCH', '/settings/v3alpha/features', { multitenancy_resources_api: true });
    }
  });
});
