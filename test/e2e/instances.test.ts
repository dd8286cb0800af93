/**
 * PlatformInstances (system API) against a started node: CRUD and search of instances,
 * domains resolving the Host at once, limits (block → 429), bulk limits, bad input (400
 * naming the field) and one call over gRPC. Authentication: system-api-auth.test.ts.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformInstances } from '../../src/gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup } from './seed.fixture.js';
import { createSystemUserKey, mintSystemJwt, systemApi, systemUsersEnv, type SystemUserKey } from './system-user.fixture.js';

const BASE = '/resources/v3alpha/instances';
const ORGS = '/resources/v3alpha/organizations';

let node: TestNode;
let ops: SystemUserKey;
let sys: ReturnType<typeof systemApi>;

beforeAll(async () => {
  ops = await createSystemUserKey('ops', 'ES256');
  node = await startTestNode({ env: { TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]), TESSERA_DEFAULT_FEATURES: 'token_exchange' } });
  sys = systemApi(node, ops);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const hostOf = (domain: string) => ({ host: `${domain}:${node.httpPort}` });
const errorId = (body: Record<string, any>) => body.details?.[0]?.id;

describe('instances CRUD', () => {
  it('creates, reads, patches (also as a no-op), and deletes an instance; the Host stops resolving', async () => {
    const created = await sys('POST', BASE, { name: 'Crud Inc', domain: 'Crud.Example' });
    expect(created.status).toBe(201);
    const id: string = created.body.details.id;
    expect(created.body.details.resourceOwner).toEqual({ type: 'OWNER_TYPE_INSTANCE', id });
    expect(created.body.defaultOrgId).toMatch(/^\d+$/);
    expect(created.body.adminToken).toBeUndefined();

    const got = await sys('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.instance).toMatchObject({
      instance: { name: 'Crud Inc' },
      state: 'EFFECTIVE_STATE_ACTIVE',
      domains: ['crud.example'],
      limits: {},
      details: { id, sequence: created.body.details.sequence },
    });

    const patched = await sys('PATCH', `${BASE}/${id}`, { name: 'Crud Ltd' });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    const noop = await sys('PATCH', `${BASE}/${id}`, { name: 'Crud Ltd' });
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    expect((await sys('PATCH', `${BASE}/${id}`, {})).body.details.sequence).toBe(patched.body.details.sequence);
    expect((await sys('GET', `${BASE}/${id}`)).body.instance.instance.name).toBe('Crud Ltd');

    // the instance answers on its domain (401: it resolved, but we sent no token of it)
    expect((await api(node, '')('GET', `${ORGS}/_instance_default`, undefined, hostOf('crud.example'))).status).toBe(401);
    expect((await sys('DELETE', `${BASE}/${id}`)).status).toBe(200);
    const gone = await api(node, '')('GET', `${ORGS}/_instance_default`, undefined, hostOf('crud.example'));
    expect(gone.status).toBe(404);
    expect(errorId(gone.body)).toBe('instance.not_found');
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const response = await sys(method, `${BASE}/${id}`, body);
      expect(response.status, method).toBe(404);
      expect(errorId(response.body)).toBe('instance.not_found');
    }
    // the domain is free again
    expect((await sys('POST', BASE, { name: 'Crud Again', domain: 'crud.example' })).status).toBe(201);
  });

  it('sets up an admin whose token works once on the new domain, with the default features', async () => {
    const created = await sys('POST', BASE, { name: 'Beta', domain: 'beta.example', defaultOrgName: 'Beta Org', admin: { username: 'boss' } });
    expect(created.status).toBe(201);
    expect(created.body.adminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.body.adminUserId).toMatch(/^\d+$/);
    const asAdmin = api(node, created.body.adminToken);
    const org = await asAdmin('GET', `${ORGS}/_instance_default`, undefined, hostOf('beta.example'));
    expect(org.status).toBe(200);
    expect(org.body.organization).toMatchObject({ organization: { name: 'Beta Org' }, primaryDomain: 'beta-org.beta.example' });
    expect(org.body.organization.details.id).toBe(created.body.defaultOrgId);
    const features = await asAdmin('GET', '/settings/v3alpha/features', undefined, hostOf('beta.example'));
    expect(features.body.features.token_exchange).toEqual({ value: true });
    // the token belongs to the new instance only
    expect((await asAdmin('GET', `${ORGS}/_instance_default`)).status).toBe(401);
    // and is never readable again
    expect(JSON.stringify((await sys('GET', `${BASE}/${created.body.details.id}`)).body)).not.toContain(created.body.adminToken);
  });
});

describe('instance domains', () => {
  it('adds a domain that resolves at once, removes it (404 after), refuses duplicates and the last domain', async () => {
    const created = await sys('POST', BASE, { name: 'Gamma', domain: 'gamma.example', admin: { username: 'root' } });
    const id: string = created.body.details.id;
    const asAdmin = api(node, created.body.adminToken);
    const before = await asAdmin('GET', `${ORGS}/_instance_default`, undefined, hostOf('new.example'));
    expect(before.status).toBe(404); // unknown: also remembered in the negative cache

    const added = await sys('POST', `${BASE}/${id}/domains`, { domain: 'New.Example' });
    expect(added.status).toBe(201);
    expect(added.body.details.id).toBe(id);
    expect((await asAdmin('GET', `${ORGS}/_instance_default`, undefined, hostOf('new.example'))).status).toBe(200);

    const listed = await sys('GET', `${BASE}/${id}/domains`);
    expect(listed.status).toBe(200);
    expect(listed.body.result).toEqual([{ domain: 'gamma.example', primary: true }, { domain: 'new.example' }]);
    expect(listed.body.details).toMatchObject({ totalResult: '2', endOfList: true });

    const taken = await sys('POST', `${BASE}/${id}/domains`, { domain: 'localhost' });
    expect(taken.status).toBe(409);
    expect(errorId(taken.body)).toBe('instance.domain_taken');
    const again = await sys('POST', `${BASE}/${id}/domains`, { domain: 'new.example' });
    expect(again.status).toBe(409);
    expect(errorId(again.body)).toBe('instance.domain_exists');

    expect((await sys('DELETE', `${BASE}/${id}/domains/new.example`)).status).toBe(200);
    const removed = await asAdmin('GET', `${ORGS}/_instance_default`, undefined, hostOf('new.example'));
    expect(removed.status).toBe(404);
    expect(errorId(removed.body)).toBe('instance.not_found');
    expect((await asAdmin('GET', `${ORGS}/_instance_default`, undefined, hostOf('gamma.example'))).status).toBe(200);

    const missing = await sys('DELETE', `${BASE}/${id}/domains/new.example`);
    expect(missing.status).toBe(404);
    expect(errorId(missing.body)).toBe('instance.domain_not_found');
    const last = await sys('DELETE', `${BASE}/${id}/domains/gamma.example`);
    expect(last.status).toBe(400);
    expect(last.body.code).toBe(9);
    expect(errorId(last.body)).toBe('instance.domain_last');
    expect((await sys('POST', `${BASE}/4242/domains`, { domain: 'nobody.example' })).status).toBe(404);
    expect((await sys('GET', `${BASE}/4242/domains`)).status).toBe(404);
  });
});

describe('instance search', () => {
  it('filters, sorts by each column both ways, pages, and limits', async () => {
    const ids: Record<string, string> = {};
    for (const name of ['Sort C', 'Sort A', 'Sort B']) {
      const domain = `${name.replace(' ', '-').toLowerCase()}.sort.example`;
      ids[name] = (await sys('POST', BASE, { name, domain })).body.details.id;
    }
    await sys('PATCH', `${BASE}/${ids['Sort C']}`, { name: 'Sort C' }); // no-op: change date unchanged
    await sys('POST', `${BASE}/${ids['Sort A']}/domains`, { domain: 'extra.sort.example' }); // A changed last
    const filter = [{ name: { name: 'Sort ', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }];
    const names = async (query: string) => {
      const response = await sys('POST', `${BASE}/_search?${query}`, filter);
      expect(response.status, query).toBe(200);
      return response.body.result.map((i: any) => i.instance.name);
    };
    expect(await names('sortingColumn=INSTANCE_FIELD_NAME_NAME&query.asc=true')).toEqual(['Sort A', 'Sort B', 'Sort C']);
    expect(await names('sortingColumn=INSTANCE_FIELD_NAME_NAME')).toEqual(['Sort C', 'Sort B', 'Sort A']);
    expect(await names('sortingColumn=INSTANCE_FIELD_NAME_ID&query.asc=true')).toEqual(['Sort C', 'Sort A', 'Sort B']);
    expect(await names('sortingColumn=INSTANCE_FIELD_NAME_ID&query.asc=false')).toEqual(['Sort B', 'Sort A', 'Sort C']);
    expect(await names('sortingColumn=INSTANCE_FIELD_NAME_CREATION_DATE&query.asc=true')).toEqual(['Sort C', 'Sort A', 'Sort B']);
    expect(await names('')).toEqual(['Sort B', 'Sort A', 'Sort C']); // default: creation date, descending
    expect(await names('sortingColumn=INSTANCE_FIELD_NAME_CHANGE_DATE')).toEqual(['Sort A', 'Sort B', 'Sort C']);
    expect(await names('sortingColumn=INSTANCE_FIELD_NAME_CHANGE_DATE&query.asc=true')).toEqual(['Sort C', 'Sort B', 'Sort A']);

    const page = await sys('POST', `${BASE}/_search?sortingColumn=INSTANCE_FIELD_NAME_NAME&query.asc=true&query.offset=1&query.limit=1`, filter);
    expect(page.body.result.map((i: any) => i.instance.name)).toEqual(['Sort B']);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    expect(page.body.details.endOfList).toBeUndefined();
    expect(page.body.sortingColumn).toBe('INSTANCE_FIELD_NAME_NAME');

    const byIds = await sys('POST', `${BASE}/_search?query.asc=true`, [{ inIds: { ids: [ids['Sort A'], ids['Sort B']] } }]);
    expect(byIds.body.result.map((i: any) => i.details.id)).toEqual([ids['Sort A'], ids['Sort B']]);
    const byDomain = await sys('POST', `${BASE}/_search`, [{ domain: { domain: 'extra.sort.example' } }]);
    expect(byDomain.body.result.map((i: any) => i.instance.name)).toEqual(['Sort A']);
    const anded = await sys('POST', `${BASE}/_search`, [...filter, { domain: { domain: '.sort.example', method: 'TEXT_FILTER_METHOD_ENDS_WITH' } }, { inIds: { ids: [ids['Sort C']] } }]);
    expect(anded.body.result.map((i: any) => i.instance.name)).toEqual(['Sort C']);
    const all = await sys('POST', `${BASE}/_search?query.limit=1000`, []);
    expect(all.body.result.map((i: any) => i.instance.name)).toContain('Tessera'); // the first instance

    const tooMany = await sys('POST', `${BASE}/_search?query.limit=1001`, []);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details.find((d: any) => d.fieldViolations)?.fieldViolations[0].field).toBe('query.limit');
  });
});

describe('instance limits', () => {
  it('blocks an instance (429 on every call, even unauthenticated) and unblocks it; partial updates', async () => {
    const setup = await readSetup(node);
    // JWKS and discovery are answered from memory once held (docs/architecture.md, "Fair admission"): held here first.
    const fromMemory = ['/oauth/v2/keys', '/.well-known/openid-configuration'];
    for (const path of fromMemory) for (let i = 0; i < 2; i++) expect((await api(node, '')('GET', path)).status).toBe(200);
    const blocked = await sys('POST', `${BASE}/${setup.instanceId}/_limit`, { block: true });
    expect(blocked.status).toBe(200);
    for (const token of [node.adminToken, '']) {
      const response = await api(node, token)('GET', `${ORGS}/_instance_default`);
      expect(response.status).toBe(429);
      expect(response.body.code).toBe(8);
      expect(errorId(response.body)).toBe('instance.blocked');
    }
    for (const path of fromMemory) {
      const response = await api(node, '')('GET', path);
      expect(response.status).toBe(429);
      expect(errorId(response.body)).toBe('instance.blocked');
    }
    // the system API is not blocked
    expect((await sys('GET', `${BASE}/${setup.instanceId}`)).body.instance.limits).toEqual({ block: true });

    const retention = await sys('POST', `${BASE}/${setup.instanceId}/_limit`, { auditLogRetention: '86400s' });
    expect(retention.status).toBe(200);
    expect((await sys('GET', `${BASE}/${setup.instanceId}`)).body.instance.limits).toEqual({ block: true, auditLogRetention: '86400s' });
    const same = await sys('POST', `${BASE}/${setup.instanceId}/_limit`, { block: true });
    expect(same.body.details.sequence).toBe(retention.body.details.sequence); // nothing changed: no event

    expect((await sys('POST', `${BASE}/${setup.instanceId}/_limit`, { block: false, auditLogRetention: '0s' })).status).toBe(200);
    expect((await sys('GET', `${BASE}/${setup.instanceId}`)).body.instance.limits).toEqual({});
    expect((await api(node)('GET', `${ORGS}/_instance_default`)).status).toBe(200);
    for (const path of fromMemory) expect((await api(node, '')('GET', path)).status).toBe(200);
    expect((await sys('POST', `${BASE}/4242/_limit`, { block: true })).status).toBe(404);
  });

  it('bulk-limits several instances, all or nothing', async () => {
    const a = await sys('POST', BASE, { name: 'Bulk A', domain: 'bulk-a.example', admin: { username: 'a' } });
    const b = await sys('POST', BASE, { name: 'Bulk B', domain: 'bulk-b.example', admin: { username: 'b' } });
    const ids = [a.body.details.id, b.body.details.id];
    const status = async (body: Record<string, any>, domain: string) => (await api(node, body.adminToken)('GET', `${ORGS}/_instance_default`, undefined, hostOf(domain))).status;

    const failed = await sys('POST', `${BASE}/_bulk_limit`, [{ instanceId: ids[0], block: true }, { instanceId: '4242', block: true }]);
    expect(failed.status).toBe(404);
    expect(await status(a.body, 'bulk-a.example')).toBe(200); // nothing changed

    const bulk = await sys('POST', `${BASE}/_bulk_limit`, [{ instanceId: ids[0], block: true }, { instanceId: ids[1], block: true, auditLogRetention: '3600s' }]);
    expect(bulk.status).toBe(200);
    expect(bulk.body.details.map((d: any) => d.id)).toEqual(ids);
    expect(await status(a.body, 'bulk-a.example')).toBe(429);
    expect(await status(b.body, 'bulk-b.example')).toBe(429);
    expect((await sys('GET', `${BASE}/${ids[1]}`)).body.instance.limits).toEqual({ block: true, auditLogRetention: '3600s' });

    await sys('POST', `${BASE}/_bulk_limit`, ids.map((instanceId) => ({ instanceId, block: false })));
    expect(await status(a.body, 'bulk-a.example')).toBe(200);
    expect(await status(b.body, 'bulk-b.example')).toBe(200);
    const duplicate = await sys('POST', `${BASE}/_bulk_limit`, [{ instanceId: ids[0] }, { instanceId: ids[0] }]);
    expect(duplicate.status).toBe(400);
    expect(errorId(duplicate.body)).toBe('instance.limits_duplicate');
  });
});

describe('bad input', () => {
  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const count = async () => (await sys('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult;
    const before = await count();
    const past = new Date(Date.now() - 60_000).toISOString();
    const cases: [string, string, string, unknown, string][] = [
      ['missing body', 'POST', BASE, undefined, 'instance'],
      ['missing name', 'POST', BASE, { domain: 'x.example' }, 'instance.name'],
      ['wrong type', 'POST', BASE, { name: 7, domain: 'x.example' }, 'instance.name'],
      ['over-long name', 'POST', BASE, { name: 'x'.repeat(201), domain: 'x.example' }, 'instance.name'],
      ['missing domain', 'POST', BASE, { name: 'X' }, 'instance.domain'],
      ['domain with scheme', 'POST', BASE, { name: 'X', domain: 'https://x.example' }, 'instance.domain'],
      ['domain with port', 'POST', BASE, { name: 'X', domain: 'x.example:8080' }, 'instance.domain'],
      ['domain with space', 'POST', BASE, { name: 'X', domain: 'x y.example' }, 'instance.domain'],
      ['over-long domain', 'POST', BASE, { name: 'X', domain: `${'a'.repeat(60)}.`.repeat(5) + 'example' }, 'instance.domain'],
      ['admin without username', 'POST', BASE, { name: 'X', domain: 'x.example', admin: {} }, 'instance.admin.username'],
      ['token already expired', 'POST', BASE, { name: 'X', domain: 'x.example', admin: { username: 'a', tokenExpirationDate: past } }, 'instance.admin.tokenExpirationDate'],
      ['bad timestamp', 'POST', BASE, { name: 'X', domain: 'x.example', admin: { username: 'a', tokenExpirationDate: 'soon' } }, 'instance.admin.tokenExpirationDate'],
      ['blank patch name', 'PATCH', `${BASE}/1`, { name: ' ' }, 'instance.name'],
      ['bad domain to add', 'POST', `${BASE}/1/domains`, { domain: '-bad-.example' }, 'domain.domain'],
      ['negative retention', 'POST', `${BASE}/1/_limit`, { auditLogRetention: '-5s' }, 'limits.auditLogRetention'],
      ['non-boolean block', 'POST', `${BASE}/1/_limit`, { block: 'yes' }, 'limits.block'],
      ['empty bulk', 'POST', `${BASE}/_bulk_limit`, [], 'limits'],
      ['bulk without id', 'POST', `${BASE}/_bulk_limit`, [{ block: true }], 'limits[0].instanceId'],
      ['unknown sorting column', 'POST', `${BASE}/_search?sortingColumn=INSTANCE_FIELD_NAME_NOPE`, [], 'sortingColumn'],
      ['unknown filter method', 'POST', `${BASE}/_search`, [{ name: { name: 'a', method: 'TEXT_FILTER_METHOD_NOPE' } }], 'filters[0].name.method'],
      ['over-long filter', 'POST', `${BASE}/_search`, [{ name: { name: 'x'.repeat(201) } }], 'filters[0].name.name'],
    ];
    for (const [label, method, path, body, field] of cases) {
      const response = await sys(method, path, body);
      expect(response.status, label).toBe(400);
      const violations = response.body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
      expect(violations?.fieldViolations?.map((v: any) => v.field), label).toContain(field);
    }
    expect(await count()).toBe(before);
  });
});

describe('gRPC', () => {
  it('creates and reads an instance over gRPC (the audience is the gRPC URL)', async () => {
    const client = createClient(PlatformInstances, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const headers = { authorization: `Bearer ${await mintSystemJwt(ops, { aud: node.grpcUrl })}` };
    const created = await client.createInstance({ instance: { name: 'Over gRPC', domain: 'grpc.example' } }, { headers });
    const id = created.details?.id ?? '';
    const got = await client.getInstance({ id }, { headers });
    expect(got.instance?.instance?.name).toBe('Over gRPC');
    expect(got.instance?.domains).toEqual(['grpc.example']);
  });
});
