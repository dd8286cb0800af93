/**
 * PlatformUserSchemas over JSON/HTTP (and once over gRPC): CRUD, JSON Schema validation,
 * type uniqueness, search (filters, sorting, paging, limits), state actions, bad input, 403.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformUserSchemas } from '../../src/gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const BASE = '/resources/v3alpha/user_schemas';
const employee = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { name: { type: 'string' }, level: { type: 'integer', minimum: 1 } },
  required: ['name'],
};

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

async function create(type: string, schema: unknown = employee): Promise<string> {
  const created = await call('POST', BASE, { type, schema, possibleAuthenticators: ['AUTHENTICATOR_TYPE_PASSWORD'] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.details.id;
}

describe('user schemas', () => {
  it('creates, reads, patches (also as a no-op), changes state and deletes', async () => {
    const id = await create('employee');
    const setup = await readSetup(node);
    const got = await call('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.userSchema).toMatchObject({
      config: { type: 'employee', schema: employee, possibleAuthenticators: ['AUTHENTICATOR_TYPE_PASSWORD'] },
      state: 'USER_SCHEMA_STATE_ACTIVE',
      revision: 1,
      details: { id, resourceOwner: { type: 'OWNER_TYPE_INSTANCE', id: setup.instanceId } },
    });

    const changed = { ...employee, required: ['name', 'level'] };
    const patched = await call('PATCH', `${BASE}/${id}`, { schema: changed });
    expect(patched.status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.userSchema.revision).toBe(2);
    const reordered = { required: ['name', 'level'], properties: employee.properties, type: 'object', $schema: employee.$schema };
    const noop = await call('PATCH', `${BASE}/${id}`, { type: 'employee', schema: reordered, possibleAuthenticators: ['AUTHENTICATOR_TYPE_PASSWORD'] });
    expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    expect((await call('PATCH', `${BASE}/${id}`, {})).body.details.sequence).toBe(patched.body.details.sequence);
    await call('PATCH', `${BASE}/${id}`, { type: 'staff', possibleAuthenticators: ['AUTHENTICATOR_TYPE_USERNAME', 'AUTHENTICATOR_TYPE_WEBAUTHN'] });
    const renamed = (await call('GET', `${BASE}/${id}`)).body.userSchema;
    expect(renamed.config.type).toBe('staff');
    expect(renamed.config.possibleAuthenticators).toEqual(['AUTHENTICATOR_TYPE_USERNAME', 'AUTHENTICATOR_TYPE_WEBAUTHN']);
    expect(renamed.revision).toBe(2);

    const deactivated = await call('POST', `${BASE}/${id}/_deactivate`);
    expect(deactivated.status).toBe(200);
    expect((await call('POST', `${BASE}/${id}/_deactivate`)).body.details.sequence).toBe(deactivated.body.details.sequence);
    expect((await call('GET', `${BASE}/${id}`)).body.userSchema.state).toBe('USER_SCHEMA_STATE_INACTIVE');
    expect((await call('POST', `${BASE}/${id}/_activate`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).body.userSchema.state).toBe('USER_SCHEMA_STATE_ACTIVE');

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
    await create('staff'); // the type is free again
  });

  it('keeps types unique regardless of case', async () => {
    await create('Customer');
    const dup = await call('POST', BASE, { type: 'customer', schema: employee });
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].id).toBe('userschema.type_taken');
  });

  it('searches with filters, sorting and paging', async () => {
    const b = await create('srt-b');
    const a = await create('srt-a', { type: 'object' });
    const c = await create('srt-c');
    await call('PATCH', `${BASE}/${a}`, { schema: { type: 'object', properties: {} } });
    await call('POST', `${BASE}/${c}/_deactivate`);
    const filter = { type: { type: 'srt-', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } };
    const ids = async (query: string, filters: unknown[] = [filter]) =>
      ((await call('POST', `${BASE}/_search?${query}`, filters)).body.result ?? []).map((s: any) => s.details.id);
    const expected: Record<string, string[]> = {
      USER_SCHEMA_FIELD_NAME_ID: [b, a, c],
      USER_SCHEMA_FIELD_NAME_CREATION_DATE: [b, a, c],
      USER_SCHEMA_FIELD_NAME_CHANGE_DATE: [b, a, c],
      USER_SCHEMA_FIELD_NAME_TYPE: [a, b, c],
      USER_SCHEMA_FIELD_NAME_STATE: [b, a, c],
      USER_SCHEMA_FIELD_NAME_REVISION: [b, c, a],
    };
    for (const [column, order] of Object.entries(expected)) {
      expect(await ids(`sortingColumn=${column}&query.asc=true`), column).toEqual(order);
      expect(await ids(`sortingColumn=${column}`), column).toEqual([...order].reverse());
    }
    expect(await ids('query.asc=true', [filter, { state: { state: 'USER_SCHEMA_STATE_INACTIVE' } }])).toEqual([c]);
    expect(await ids('query.asc=true', [filter, { inIds: { ids: [a, c] } }])).toEqual([a, c]);
    const page = await call('POST', `${BASE}/_search?sortingColumn=USER_SCHEMA_FIELD_NAME_TYPE&query.asc=true&query.offset=1&query.limit=1`, [filter]);
    expect(page.body.result.map((s: any) => s.details.id)).toEqual([b]);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['malformed JSON', BASE, '{"type":', 'userSchema'],
      ['missing type', BASE, { schema: employee }, 'userSchema.type'],
      ['long type', BASE, { type: 't'.repeat(201), schema: employee }, 'userSchema.type'],
      ['wrong type', BASE, { type: 5, schema: employee }, 'userSchema.type'],
      ['missing schema', BASE, { type: 'no-schema' }, 'userSchema.schema'],
      ['schema not an object', BASE, { type: 'bad', schema: 'text' }, 'userSchema.schema'],
      ['invalid JSON Schema', BASE, { type: 'bad', schema: { type: 'no-such-type' } }, 'userSchema.schema'],
      ['invalid JSON Schema keyword', BASE, { type: 'bad', schema: { minLength: -1 } }, 'userSchema.schema'],
      ['unknown authenticator', BASE, { type: 'bad', schema: employee, possibleAuthenticators: ['AUTHENTICATOR_TYPE_NOPE'] }, 'userSchema.possibleAuthenticators[0]'],
      ['unspecified authenticator', BASE, { type: 'bad', schema: employee, possibleAuthenticators: ['AUTHENTICATOR_TYPE_UNSPECIFIED'] }, 'userSchema.possibleAuthenticators[0]'],
      ['limit above 1000', `${BASE}/_search?query.limit=1001`, [], 'query.limit'],
      ['long filter', `${BASE}/_search`, [{ type: { type: 'x'.repeat(201) } }], 'filters[0].type.type'],
    ];
    for (const [label, path, body, field] of cases) {
      const response = await call('POST', path, body);
      expect(response.status, label).toBe(400);
      expect(violatedFields(response.body), label).toContain(field);
    }
    const invalid = await call('POST', BASE, { type: 'bad', schema: { type: 'no-such-type' } });
    expect(invalid.body.details[0].id).toBe('userschema.schema_invalid');
    const id = await create('patch-target');
    const badPatch = await call('PATCH', `${BASE}/${id}`, { schema: { properties: 5 } });
    expect(violatedFields(badPatch.body)).toEqual(['userSchema.schema']);
  });

  it('answers 403 without userschema.write and serves gRPC', async () => {
    const setup = await readSetup(node);
    const viewer = await seedMachineUser(node, {
      username: 'schema-viewer',
      memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }],
    });
    const id = await create('guarded');
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', `${BASE}/${id}`)).status).toBe(200);
    expect((await asViewer('POST', BASE, { type: 'viewer-made', schema: employee })).status).toBe(403);
    expect((await asViewer('DELETE', `${BASE}/${id}`)).status).toBe(403);

    const client = createClient(PlatformUserSchemas, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const got = await client.getUserSchema({ id }, { headers: { authorization: `Bearer ${node.adminToken}` } });
    expect(got.userSchema?.config?.type).toBe('guarded');
    expect(got.userSchema?.config?.schema).toEqual(employee);
  });
});
