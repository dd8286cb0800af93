/**
 * PlatformDomains over JSON/HTTP against a started node whose challenge checks point at a local
 * DNS responder and HTTP server: CRUD, search, set primary (login-name domain, ctx.orgDomain),
 * DNS and HTTP validation, bad input, gRPC, permissions.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformDomains } from '../../src/gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { startChallengeServer, startDnsResponder, type ChallengeServer, type DnsResponder } from './challenge.fixture.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const BASE = '/resources/v3alpha/domains';
const ORGS = '/resources/v3alpha/organizations';

let node: TestNode;
let call: ReturnType<typeof api>;
let dns: DnsResponder;
let http: ChallengeServer;

beforeAll(async () => {
  [dns, http] = await Promise.all([startDnsResponder(), startChallengeServer()]);
  node = await startTestNode({
    env: {
      TESSERA_DOMAIN_VALIDATION_DNS_SERVERS: `127.0.0.1:${dns.port}`,
      TESSERA_DOMAIN_VALIDATION_HTTP_BASE: `http://127.0.0.1:${http.port}`,
    },
  });
  call = api(node);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
  await Promise.all([dns.close(), http.close()]);
});

async function newOrg(name: string): Promise<string> {
  const created = await call('POST', ORGS, { name });
  expect(created.status).toBe(201);
  return created.body.details.id;
}

/** Generates a challenge, publishes it, validates: the domain ends verified. */
async function verify(domain: string): Promise<void> {
  const generated = await call('POST', `${BASE}/${domain}/_generate_validation`);
  expect(generated.status).toBe(200);
  dns.txt.set(`_platform-challenge.${domain}`, [generated.body.token]);
  expect((await call('POST', `${BASE}/${domain}/_validate`)).status).toBe(200);
}

describe('domains', () => {
  it('creates, reads, patches (also as a no-op), searches and deletes a domain', async () => {
    const orgId = await newOrg('Crud Org');
    const created = await call('POST', `${BASE}?ctx.orgId=${orgId}`, { domain: ' Crud.Example.COM. ', validationType: 'DOMAIN_VALIDATION_TYPE_HTTP' });
    expect(created.status).toBe(201);
    expect(created.body.details).toMatchObject({ id: 'crud.example.com', resourceOwner: { type: 'OWNER_TYPE_ORG', id: orgId } });

    const got = await call('GET', `${BASE}/crud.example.com`);
    expect(got.status).toBe(200);
    expect(got.body.domain).toMatchObject({
      domain: 'crud.example.com',
      validationType: 'DOMAIN_VALIDATION_TYPE_HTTP',
      details: { id: 'crud.example.com', sequence: created.body.details.sequence },
    });
    expect(got.body.domain.isVerified).toBeUndefined(); // false is omitted on the wire
    expect(got.body.domain.isPrimary).toBeUndefined();
    expect(got.body.domain.creationDate).toMatch(/^\d{4}-/);
    expect((await call('GET', `${BASE}/CRUD.example.com`)).status).toBe(200); // ids are case-insensitive

    const patched = await call('PATCH', `${BASE}/crud.example.com`, { validationType: 'DOMAIN_VALIDATION_TYPE_DNS' });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    for (const body of [{ validationType: 'DOMAIN_VALIDATION_TYPE_DNS' }, {}]) {
      const noop = await call('PATCH', `${BASE}/crud.example.com`, body);
      expect(noop.status).toBe(200);
      expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    }

    const found = await call('POST', `${BASE}/_search`, [{ orgId: { id: orgId } }]);
    expect(found.body.result.map((d: any) => [d.domain, d.isPrimary ?? false, d.isVerified ?? false])).toEqual([
      ['crud.example.com', false, false],
      ['crud-org.localhost', true, true], // the generated domain: verified and primary from the start
    ]);

    expect((await call('DELETE', `${BASE}/crud.example.com`)).status).toBe(200);
    expect((await call('GET', `${BASE}/crud.example.com`)).status).toBe(404);
    expect((await call('PATCH', `${BASE}/crud.example.com`, {})).body.details[0].id).toBe('domain.not_found');
    expect((await call('DELETE', `${BASE}/crud.example.com`)).status).toBe(404);
    expect((await call('POST', `${BASE}/crud.example.com/_set_primary`)).status).toBe(404);
    // the domain is free again, also for another organization (no ctx: the default org)
    expect((await call('POST', BASE, { domain: 'crud.example.com' })).body.details.resourceOwner.id).toBe((await readSetup(node)).orgId);
  });

  it('refuses a domain used in the instance with 409, in the same or another organization', async () => {
    const a = await newOrg('Dup A');
    const b = await newOrg('Dup B');
    expect((await call('POST', `${BASE}?ctx.orgId=${a}`, { domain: 'dup.example.com' })).status).toBe(201);
    for (const org of [a, b]) {
      const dup = await call('POST', `${BASE}?ctx.orgId=${org}`, { domain: 'DUP.example.com' });
      expect(dup.status).toBe(409);
      expect(dup.body.details[0].id).toBe('org.domain_taken');
    }
    expect((await call('POST', `${BASE}?ctx.orgId=${b}`, { domain: 'dup-a.localhost' })).status).toBe(409); // a generated domain
  });

  it('validates over HTTP, sets the domain primary: the org and ctx.orgDomain follow', async () => {
    const orgId = await newOrg('Primary Org');
    expect((await call('POST', `${BASE}?ctx.orgId=${orgId}`, { domain: 'primary.example.com' })).status).toBe(201);
    const unverified = await call('POST', `${BASE}/primary.example.com/_set_primary`);
    expect(unverified.status).toBe(400);
    expect(unverified.body.details[0].id).toBe('domain.not_verified');
    expect((await call('POST', `${BASE}/primary.example.com/_validate`)).body.details[0].id).toBe('domain.validation_missing');

    const generated = await call('POST', `${BASE}/primary.example.com/_generate_validation?validationType=DOMAIN_VALIDATION_TYPE_HTTP`);
    expect(generated.status).toBe(200);
    const token: string = generated.body.token;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(generated.body).toMatchObject({
      validationType: 'DOMAIN_VALIDATION_TYPE_HTTP',
      httpUrl: `https://primary.example.com/.well-known/platform-challenge/${token}.txt`,
    });
    expect(JSON.stringify((await call('GET', `${BASE}/primary.example.com`)).body)).not.toContain(token); // never in reads

    const notPublished = await call('POST', `${BASE}/primary.example.com/_validate`);
    expect(notPublished.status).toBe(400);
    expect(notPublished.body.details[0].id).toBe('domain.validation_failed');
    http.files.set(`primary.example.com/.well-known/platform-challenge/${token}.txt`, 'wrong');
    expect((await call('POST', `${BASE}/primary.example.com/_validate`)).body.details[0].id).toBe('domain.validation_failed');
    http.files.set(`primary.example.com/.well-known/platform-challenge/${token}.txt`, `${token}\n`);
    const validated = await call('POST', `${BASE}/primary.example.com/_validate`);
    expect(validated.status).toBe(200);
    expect(http.requests.at(-1)?.headers.host).toBe('primary.example.com');
    const again = await call('POST', `${BASE}/primary.example.com/_validate`);
    expect(again.body.details.sequence).toBe(validated.body.details.sequence); // verified: nothing more to do
    expect((await call('POST', `${BASE}/primary.example.com/_generate_validation`)).body.details[0].id).toBe('domain.already_verified');

    expect((await call('POST', `${BASE}/primary.example.com/_set_primary`)).status).toBe(200);
    expect((await call('GET', `${ORGS}/${orgId}`)).body.organization.primaryDomain).toBe('primary.example.com');
    expect((await call('GET', `${BASE}/primary.example.com`)).body.domain).toMatchObject({ isPrimary: true, isVerified: true });
    expect((await call('GET', `${BASE}/primary-org.localhost`)).body.domain.isPrimary).toBeUndefined();
    const inCtx = await call('POST', `${ORGS}/_search?ctx.orgDomain=primary.example.com`, []);
    expect(inCtx.body.result.map((o: any) => o.details.id)).toEqual([orgId]);

    const removePrimary = await call('DELETE', `${BASE}/primary.example.com`);
    expect(removePrimary.status).toBe(400);
    expect(removePrimary.body.details[0].id).toBe('domain.is_primary');
    expect((await call('DELETE', `${BASE}/primary-org.localhost`)).status).toBe(200); // the generated one, no longer primary
    expect((await call('POST', `${ORGS}/_search?ctx.orgDomain=primary-org.localhost`, [])).status).toBe(404);

    // deleting the organization frees its domains
    expect((await call('DELETE', `${ORGS}/${orgId}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/primary.example.com`)).status).toBe(404);
    expect((await call('POST', BASE, { domain: 'primary.example.com' })).status).toBe(201);
  });

  it('validates over DNS; a regenerated token replaces the earlier one', async () => {
    const orgId = await newOrg('Dns Org');
    expect((await call('POST', `${BASE}?ctx.orgId=${orgId}`, { domain: 'dns.example.com' })).status).toBe(201);
    const first = await call('POST', `${BASE}/dns.example.com/_generate_validation`);
    expect(first.body).toMatchObject({ validationType: 'DOMAIN_VALIDATION_TYPE_DNS', dnsRecordName: '_platform-challenge.dns.example.com' });
    const second = await call('POST', `${BASE}/dns.example.com/_generate_validation`);
    dns.txt.set('_platform-challenge.dns.example.com', [first.body.token]);
    expect((await call('POST', `${BASE}/dns.example.com/_validate`)).body.details[0].id).toBe('domain.validation_failed');
    dns.txt.set('_platform-challenge.dns.example.com', ['unrelated', second.body.token]);
    expect((await call('POST', `${BASE}/dns.example.com/_validate`)).status).toBe(200);
    expect((await call('GET', `${BASE}/dns.example.com`)).body.domain.isVerified).toBe(true);
  });

  it('filters, sorts by each column both ways and pages', async () => {
    const orgId = await newOrg('Sort Org');
    for (const d of ['b.sort.test', 'a.sort.test', 'c.sort.test']) expect((await call('POST', `${BASE}?ctx.orgId=${orgId}`, { domain: d })).status).toBe(201);
    await verify('c.sort.test');
    const search = async (params: string, filters: unknown[] = [{ domain: { domain: '.sort.test', method: 'TEXT_FILTER_METHOD_ENDS_WITH' } }]) =>
      (await call('POST', `${BASE}/_search?${params}`, filters)).body;
    const names = (body: any) => body.result.map((d: any) => d.domain);
    expect(names(await search('query.asc=true'))).toEqual(['b.sort.test', 'a.sort.test', 'c.sort.test']);
    expect(names(await search(''))).toEqual(['c.sort.test', 'a.sort.test', 'b.sort.test']);
    expect(names(await search('sortingColumn=DOMAIN_FIELD_NAME_DOMAIN&query.asc=true'))).toEqual(['a.sort.test', 'b.sort.test', 'c.sort.test']);
    expect(names(await search('sortingColumn=DOMAIN_FIELD_NAME_DOMAIN'))).toEqual(['c.sort.test', 'b.sort.test', 'a.sort.test']);
    expect(names(await search('sortingColumn=DOMAIN_FIELD_NAME_CREATION_DATE&query.asc=true'))).toEqual(['b.sort.test', 'a.sort.test', 'c.sort.test']);
    expect(names(await search('sortingColumn=DOMAIN_FIELD_NAME_CHANGE_DATE'))[0]).toBe('c.sort.test');
    expect(names(await search('sortingColumn=DOMAIN_FIELD_NAME_CHANGE_DATE&query.asc=true'))[2]).toBe('c.sort.test');
    expect((await search('sortingColumn=DOMAIN_FIELD_NAME_ORG_ID&query.asc=true', [{ orgId: { id: orgId } }])).result).toHaveLength(4);
    const page = await search('sortingColumn=DOMAIN_FIELD_NAME_DOMAIN&query.asc=true&query.offset=1&query.limit=1');
    expect(names(page)).toEqual(['b.sort.test']);
    expect(page.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
    expect(page.details.endOfList).toBeUndefined();
    expect(names(await search('', [{ orgId: { id: orgId } }, { verified: { isVerified: true } }, { primary: { isPrimary: false } }]))).toEqual(['c.sort.test']);
    expect(names(await search('', [{ orgId: { id: orgId } }, { primary: { isPrimary: true } }]))).toEqual(['sort-org.localhost']);
    expect(names(await search(`ctx.orgId=${orgId}`, [{ domain: { domain: 'A.SORT', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } }]))).toEqual(['a.sort.test']);
  });

  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const before = (await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult;
    const cases: [string, string, string, unknown, string][] = [
      ['missing domain', 'POST', BASE, {}, 'domain.domain'],
      ['wrong type', 'POST', BASE, { domain: 42 }, 'domain.domain'],
      ['too long', 'POST', BASE, { domain: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` }, 'domain.domain'],
      ['not a host name', 'POST', BASE, { domain: 'not a domain' }, 'domain.domain'],
      ['single label', 'POST', BASE, { domain: 'localhost' }, 'domain.domain'],
      ['label with a leading hyphen', 'POST', BASE, { domain: '-x.example.com' }, 'domain.domain'],
      ['unknown enum', 'POST', BASE, { domain: 'x.example.com', validationType: 'DOMAIN_VALIDATION_TYPE_EMAIL' }, 'domain.validationType'],
      ['unspecified type in patch', 'PATCH', `${BASE}/crud.example.com`, { validationType: 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED' }, 'domain.validationType'],
      ['over-long filter', 'POST', `${BASE}/_search`, [{ domain: { domain: 'x'.repeat(254) } }], 'filters[0].domain.domain'],
      ['empty filter', 'POST', `${BASE}/_search`, [{}], 'filters[0]'],
      ['limit above 1000', 'POST', `${BASE}/_search?query.limit=1001`, [], 'query.limit'],
      ['unknown sorting column', 'POST', `${BASE}/_search?sortingColumn=DOMAIN_FIELD_NAME_NOPE`, [], 'sortingColumn'],
    ];
    for (const [label, method, path, body, field] of cases) {
      const response = await call(method, path, body);
      expect(response.status, label).toBe(400);
      const violations = response.body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
      expect(violations?.fieldViolations?.map((v: any) => v.field), label).toContain(field);
    }
    expect((await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult).toBe(before);
  });

  it('answers over gRPC like over JSON', async () => {
    const client = createClient(PlatformDomains, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const setup = await readSetup(node);
    const viaJson = (await call('POST', `${BASE}/_search`, [{ orgId: { id: setup.orgId } }, { primary: { isPrimary: true } }])).body.result[0];
    const viaGrpc = await client.getDomain({ id: viaJson.domain }, { headers: { authorization: `Bearer ${node.adminToken}` } });
    expect(viaGrpc.domain?.domain).toBe(viaJson.domain);
    expect(viaGrpc.domain?.isPrimary).toBe(true);
    expect(String(viaGrpc.domain?.details?.sequence)).toBe(viaJson.details.sequence);
  });

  it('checks org.read / org.write in the domain organization (403)', async () => {
    const setup = await readSetup(node);
    const other = await newOrg('Foreign Org');
    expect((await call('POST', `${BASE}?ctx.orgId=${other}`, { domain: 'foreign.example.com' })).status).toBe(201);
    const nobody = api(node, (await seedMachineUser(node, { username: 'domain-nobody' })).token);
    expect((await nobody('GET', `${BASE}/foreign.example.com`)).status).toBe(403);
    expect((await nobody('POST', BASE, { domain: 'nobody.example.com' })).status).toBe(403);
    expect((await nobody('POST', `${BASE}/_search`, [])).body.result ?? []).toEqual([]);

    const viewer = api(node, (await seedMachineUser(node, { username: 'domain-viewer', memberships: [{ contextType: 'org', contextId: other, roles: ['ORG_OWNER_VIEWER'] }] })).token);
    expect((await viewer('GET', `${BASE}/foreign.example.com`)).status).toBe(200);
    const denied = await viewer('DELETE', `${BASE}/foreign.example.com`);
    expect(denied.status).toBe(403);
    expect(denied.body.details[0].id).toBe('auth.permission_denied');
    expect((await viewer('POST', `${BASE}/foreign.example.com/_generate_validation`)).status).toBe(403);
    expect((await viewer('GET', `${BASE}/crud.example.com`)).status).toBe(403); // a domain of the default org

    const owner = api(node, (await seedMachineUser(node, { username: 'domain-owner', memberships: [{ contextType: 'org', contextId: other, roles: ['ORG_OWNER'] }] })).token);
    expect((await owner('POST', `${BASE}?ctx.orgId=${other}`, { domain: 'owned.example.com' })).status).toBe(201);
    expect((await owner('POST', BASE, { domain: 'default-org.example.com' })).status).toBe(403); // lands in the default org
    const visible = await owner('POST', `${BASE}/_search`, []);
    expect(new Set(visible.body.result.map((d: any) => d.details.resourceOwner.id))).toEqual(new Set([other]));
    expect((await call('GET', `${BASE}/owned.example.com?ctx.orgId=${setup.orgId}`)).status).toBe(404); // outside the ctx org
  });
});
