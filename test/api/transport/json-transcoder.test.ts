import { toJson, type Message } from '@bufbuild/protobuf';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOrgFixture, SECRET_MESSAGE, type OrgFixture } from './org-invoker.fixture.js';
import { startServers, type StartedServers } from './servers.fixture.js';
import {
  CreateOrganizationRequestSchema,
  GetOrganizationRequestSchema,
  PatchOrganizationRequestSchema,
  SearchOrganizationsRequestSchema,
} from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import type { DescMessage } from '@bufbuild/protobuf';

const orgs = '/resources/v3alpha/organizations';
let fixture: OrgFixture;
let servers: StartedServers;

beforeAll(async () => {
  fixture = createOrgFixture();
  servers = await startServers(fixture.invoke);
});
afterAll(() => servers.close());
beforeEach(() => {
  fixture.calls.length = 0;
});

async function call(method: string, path: string, body?: string | object): Promise<{ status: number; json: unknown; text: string }> {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json' } };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(servers.baseUrl + path, init);
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text), text };
}

/** The request the invoker got, in proto3 JSON (so assertions read like the wire). */
function received(schema: DescMessage): unknown {
  return toJson(schema, fixture.lastRequest() as Message);
}

function violation(field: string, id = 'request.invalid'): unknown {
  return {
    code: 3,
    message: expect.any(String),
    details: [
      { '@type': 'type.googleapis.com/platform.v1.ErrorDetail', id, message: expect.any(String) },
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: expect.any(String) }] },
    ],
  };
}

describe('JSON request mapping', () => {
  it('creates from the body field and answers 201 with proto3 JSON', async () => {
    const reply = await call('POST', orgs, { name: 'Acme' });
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual({
      details: {
        id: expect.any(String),
        sequence: '1',
        changeDate: '2024-06-20T08:15:02.417Z',
        resourceOwner: { type: 'OWNER_TYPE_INSTANCE', id: '1' },
      },
    });
    expect(received(CreateOrganizationRequestSchema)).toEqual({ organization: { name: 'Acme' } });
  });

  it('accepts camelCase and snake_case body fields alike', async () => {
    const camel = [{ inIds: { ids: ['1', '2'] } }, { primaryDomain: { domain: 'acme.test', method: 'TEXT_FILTER_METHOD_ENDS_WITH' } }];
    const snake = [{ in_ids: { ids: ['1', '2'] } }, { primary_domain: { domain: 'acme.test', method: 'TEXT_FILTER_METHOD_ENDS_WITH' } }];
    await call('POST', `${orgs}/_search`, camel);
    const fromCamel = received(SearchOrganizationsRequestSchema);
    await call('POST', `${orgs}/_search`, snake);
    expect(received(SearchOrganizationsRequestSchema)).toEqual(fromCamel);
    expect(fromCamel).toEqual({ filters: camel });
  });

  it('binds the path parameter and omits zero values, 64-bit integers as strings', async () => {
    const reply = await call('GET', `${orgs}/42?id=999`);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      organization: {
        details: { id: '42', sequence: '7', changeDate: '2024-06-20T08:15:02.417Z', resourceOwner: { type: 'OWNER_TYPE_INSTANCE', id: '1' } },
        organization: { name: 'Existing' },
        state: 'EFFECTIVE_STATE_ACTIVE',
      },
    });
    expect(received(GetOrganizationRequestSchema)).toEqual({ id: '42' });
  });

  it('percent-decodes path parameters', async () => {
    await call('GET', `${orgs}/a%2Fb`);
    expect(received(GetOrganizationRequestSchema)).toEqual({ id: 'a/b' });
  });

  it('patches with a partial body', async () => {
    expect((await call('PATCH', `${orgs}/42`, {})).status).toBe(200);
    expect(received(PatchOrganizationRequestSchema)).toEqual({ id: '42', organization: {} });
    const reply = await call('PATCH', `${orgs}/42`, { name: 'Renamed' });
    expect(reply.json).toMatchObject({ details: { id: '42', sequence: '9' } });
    expect(received(PatchOrganizationRequestSchema)).toEqual({ id: '42', organization: { name: 'Renamed' } });
  });

  it('reads the search body as filters and the rest from the query', async () => {
    const filters = [{ name: { name: 'ac', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }, { state: { state: 'EFFECTIVE_STATE_ACTIVE' } }];
    const reply = await call('POST', `${orgs}/_search?query.limit=5&query.asc=true&query.offset=10&sortingColumn=ORGANIZATION_FIELD_NAME_NAME`, filters);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ details: { appliedLimit: 5, endOfList: true, totalResult: '2' }, sortingColumn: 'ORGANIZATION_FIELD_NAME_NAME' });
    expect(received(SearchOrganizationsRequestSchema)).toEqual({
      query: { offset: '10', limit: 5, asc: true },
      sortingColumn: 'ORGANIZATION_FIELD_NAME_NAME',
      filters,
    });
  });

  it('accepts enums by number and snake_case query names; an empty search body means no filters', async () => {
    const reply = await call('POST', `${orgs}/_search?sorting_column=4`);
    expect(reply.json).toEqual({ details: { appliedLimit: 100, endOfList: true }, sortingColumn: 'ORGANIZATION_FIELD_NAME_NAME' });
    expect(received(SearchOrganizationsRequestSchema)).toEqual({ sortingColumn: 'ORGANIZATION_FIELD_NAME_NAME' });
  });

  it.each(['ctx.orgId=289', 'ctx.org_id=289'])('sets the request context from %s', async (query) => {
    await call('GET', `${orgs}/42?${query}`);
    expect(received(GetOrganizationRequestSchema)).toEqual({ ctx: { orgId: '289' }, id: '42' });
  });

  it('ignores unknown query parameters and unknown body fields', async () => {
    const reply = await call('POST', `${orgs}?foo=1&ctx.nope=2&query.limit=3&organization.name=x`, { name: 'Acme', extra: { deep: true } });
    expect(reply.status).toBe(201);
    expect(received(CreateOrganizationRequestSchema)).toEqual({ organization: { name: 'Acme' } });
  });

  it('passes transport metadata to the invoker', async () => {
    await call('GET', `${orgs}/42`);
    const meta = fixture.calls[0]?.meta;
    expect(meta).toMatchObject({ protocol: 'json', host: servers.baseUrl.slice('http://'.length), remoteAddress: '127.0.0.1' });
    expect(meta?.headers['content-type']).toBe('application/json');
    expect(meta?.signal).toBeInstanceOf(AbortSignal);
  });

  it('reads the request id through to the exchange', async () => {
    const response = await fetch(`${servers.baseUrl}${orgs}/42`, { headers: { 'x-request-id': 'trace-42' } });
    await response.text();
    expect(fixture.calls[0]?.meta.requestId).toBe('trace-42');
    expect(response.headers.get('x-request-id')).toBe('trace-42');
  });
});

describe('JSON request errors', () => {
  it('answers malformed JSON with 400 naming the body field', async () => {
    const reply = await call('POST', orgs, '{"name": ');
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(violation('organization', 'request.malformed_json'));
    expect(fixture.calls).toHaveLength(0);
  });

  it.each([
    ['a wrong type', orgs, { name: 123 }, 'organization.name'],
    ['a non-object body', orgs, ['x'], 'organization'],
    ['a non-array filters body', `${orgs}/_search`, { name: {} }, 'filters'],
    ['an unknown enum name', `${orgs}/_search`, [{ name: { name: 'a', method: 'NOPE' } }], 'filters[0].name.method'],
    ['an unknown enum beside an unknown key', `${orgs}/_search`, [{}, { state: { state: 'NOPE' }, extra: 1 }], 'filters[1].state.state'],
    ['a oneof set twice', `${orgs}/_search`, [{ name: {}, state: {} }], 'filters[0].state'],
    ['a field set by both names', `${orgs}/_search`, [{ inIds: {}, in_ids: {} }], 'filters[0].inIds'],
    ['a wrong list item', `${orgs}/_search`, [{ inIds: { ids: ['1', 2] } }], 'filters[0].inIds.ids[1]'],
  ])('answers %s in the body with 400 naming the field', async (_, path, body, field) => {
    const reply = await call('POST', path, body);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(violation(field));
    expect(fixture.calls).toHaveLength(0);
  });

  it.each([
    ['sortingColumn=NOPE', 'sortingColumn'],
    ['sorting_column=99', 'sorting_column'],
    ['query.asc=yes', 'query.asc'],
    ['query.limit=abc', 'query.limit'],
    ['query.limit=-1', 'query.limit'],
    ['query.limit=4294967296', 'query.limit'],
    ['query.offset=1.5', 'query.offset'],
    ['query.limit=1&query.limit=2', 'query.limit'],
    ['ctx.orgId=1&ctx.org_id=1', 'ctx.org_id'],
    ['ctx.orgId=1&ctx.instanceId=2', 'ctx.instanceId'],
    ['ctx.system=maybe', 'ctx.system'],
    ['query=x', 'query'],
  ])('answers the query %s with 400 naming the parameter', async (query, field) => {
    const reply = await call('POST', `${orgs}/_search?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(violation(field));
  });
});

describe('JSON error replies', () => {
  it('maps an AppError to its status and rpcStatus body', async () => {
    const reply = await call('GET', `${orgs}/999`);
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({
      code: 5,
      message: 'Organization not found (org.not_found)',
      details: [{ '@type': 'type.googleapis.com/platform.v1.ErrorDetail', id: 'org.not_found', message: 'Organization not found' }],
    });
  });

  it('maps already_exists to 409', async () => {
    const reply = await call('POST', orgs, { name: 'Taken' });
    expect(reply.status).toBe(409);
    expect(reply.json).toMatchObject({ code: 6, details: [{ id: 'org.name_taken' }] });
  });

  it('answers anything else with 500 "internal error" and nothing of the original', async () => {
    const reply = await call('POST', orgs, { name: 'boom' });
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({
      code: 13,
      message: 'internal error (internal.unexpected)',
      details: [{ '@type': 'type.googleapis.com/platform.v1.ErrorDetail', id: 'internal.unexpected', message: 'internal error' }],
    });
    expect(reply.text).not.toContain(SECRET_MESSAGE.slice(0, 10));
  });
});
