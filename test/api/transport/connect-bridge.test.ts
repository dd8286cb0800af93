import { toJson } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BadRequestSchema } from '../../../src/gen/google/rpc/error_details_pb.js';
import { ErrorDetailSchema } from '../../../src/gen/platform/v1/error_pb.js';
import {
  GetOrganizationResponseSchema,
  OrganizationFieldName,
  PlatformOrganizations,
  SearchOrganizationsRequestSchema,
} from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { validationFailed } from '../../../actors/index.js';
import { createConnectFallback } from '../../../src/api/transport/connect-bridge.js';
import { createOrgFixture, SECRET_MESSAGE, type OrgFixture } from './org-invoker.fixture.js';
import { services, startServers, type StartedServers } from './servers.fixture.js';

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

const transports: [string, 'connect' | 'grpc-web', () => Transport][] = [
  ['Connect (JSON)', 'connect', () => createConnectTransport({ baseUrl: servers.baseUrl, httpVersion: '1.1' })],
  ['Connect (binary)', 'connect', () => createConnectTransport({ baseUrl: servers.baseUrl, httpVersion: '1.1', useBinaryFormat: true })],
  ['gRPC-web', 'grpc-web', () => createGrpcWebTransport({ baseUrl: servers.baseUrl, httpVersion: '1.1' })],
];

describe.each(transports)('%s on the main port', (_, protocol, transport) => {
  let client: Client<typeof PlatformOrganizations>;
  beforeAll(() => {
    client = createClient(PlatformOrganizations, transport());
  });

  it('answers like the JSON transport', async () => {
    const response = await client.getOrganization({ id: '42' });
    const viaJson: unknown = await (await fetch(`${servers.baseUrl}/resources/v3alpha/organizations/42`)).json();
    expect(toJson(GetOrganizationResponseSchema, response)).toEqual(viaJson);
    expect(fixture.calls[0]?.meta).toMatchObject({ protocol, remoteAddress: '127.0.0.1' });
    expect(fixture.calls[0]?.meta.host).toBe(servers.baseUrl.slice('http://'.length));
  });

  it('passes the request message through unchanged', async () => {
    const request = { query: { limit: 5, asc: true }, sortingColumn: OrganizationFieldName.NAME, filters: [{}, {}] };
    const response = await client.searchOrganizations(request);
    expect(response.details?.totalResult).toBe(2n);
    expect(toJson(SearchOrganizationsRequestSchema, fixture.lastRequest() as never)).toEqual({
      query: { limit: 5, asc: true },
      sortingColumn: 'ORGANIZATION_FIELD_NAME_NAME',
      filters: [{}, {}],
    });
  });

  it('sends an AppError as its code with the ErrorDetail', async () => {
    const error = await client.getOrganization({ id: '999' }).catch((e: unknown) => ConnectError.from(e));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error).toMatchObject({ code: Code.NotFound, rawMessage: 'Organization not found (org.not_found)' });
    expect((error as ConnectError).findDetails(ErrorDetailSchema)).toMatchObject([{ id: 'org.not_found', message: 'Organization not found' }]);
  });

  it('hides anything that is not an AppError behind internal', async () => {
    const error = ConnectError.from(await client.createOrganization({ organization: { name: 'boom' } }).catch((e: unknown) => e));
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe('internal error (internal.unexpected)');
    expect(error.message).not.toContain(SECRET_MESSAGE.slice(0, 10));
  });
});

describe('createConnectFallback', () => {
  const fallback = createConnectFallback(services, async () => {
    throw new Error('not called');
  });
  const base = { method: 'POST', query: '', headers: {}, body: Buffer.alloc(0), remoteAddress: '', scheme: 'http' as const, signal: new AbortController().signal, params: {}, startedAt: 0, requestId: 'test-request' };

  it.each([
    '/platform.resources.org.v3alpha.PlatformOrganizations/Nope',
    '/platform.resources.org.v3alpha.Other/GetOrganization',
    '/resources/v3alpha/organizations',
    '/platform.resources.org.v3alpha.PlatformOrganizations/GetOrganization/extra',
  ])('leaves %s to the router', async (path) => {
    expect(await fallback({ ...base, path })).toBeUndefined();
  });

  it('answers an unknown RPC path with the router 404', async () => {
    const response = await fetch(`${servers.baseUrl}/platform.resources.org.v3alpha.PlatformOrganizations/Nope`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 5, message: 'Not Found' });
  });

  it('carries field violations as google.rpc.BadRequest (Connect unary JSON, called directly)', async () => {
    const failing = createConnectFallback(services, async () => {
      throw validationFailed([{ field: 'organization.name', description: 'must not be empty' }]);
    });
    const reply = await failing({
      ...base,
      path: '/platform.resources.org.v3alpha.PlatformOrganizations/CreateOrganization',
      headers: { 'content-type': 'application/json', host: 'tessera.test' },
      body: Buffer.from('{}'),
    });
    expect(reply?.status).toBe(400);
    const body = typeof reply?.body === 'string' || reply?.body instanceof Uint8Array ? reply.body : await collect(reply?.body);
    const error = JSON.parse(Buffer.from(body).toString('utf8')) as { code: string; details: { type: string }[] };
    expect(error.code).toBe('invalid_argument');
    expect(error.details.map((d) => d.type)).toEqual([ErrorDetailSchema.typeName, BadRequestSchema.typeName]);
  });
});

async function collect(body: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  if (body !== undefined) for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
