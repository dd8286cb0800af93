import { fromBinary, toBinary, toJson, create } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { Client, credentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StatusSchema } from '../../../src/gen/google/rpc/status_pb.js';
import { ErrorDetailSchema } from '../../../src/gen/platform/v1/error_pb.js';
import {
  GetOrganizationRequestSchema,
  GetOrganizationResponseSchema,
  PlatformOrganizations,
  type GetOrganizationRequest,
  type GetOrganizationResponse,
} from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { startGrpcServer } from '../../../src/api/transport/grpc-server.js';
import { createOrgFixture, type OrgFixture } from './org-invoker.fixture.js';
import { services, startServers, type StartedServers } from './servers.fixture.js';

let fixture: OrgFixture;
let servers: StartedServers;
let viaJson: unknown;

beforeAll(async () => {
  fixture = createOrgFixture();
  servers = await startServers(fixture.invoke);
  viaJson = await (await fetch(`${servers.baseUrl}/resources/v3alpha/organizations/42`)).json();
});
afterAll(() => servers.close());
beforeEach(() => {
  fixture.calls.length = 0;
});

describe('gRPC port with the Connect gRPC client', () => {
  // createGrpcTransport always speaks HTTP/2; connect-node v2 has no httpVersion option for it.
  const client = () => createClient(PlatformOrganizations, createGrpcTransport({ baseUrl: servers.grpcUrl }));

  it('answers like the JSON transport', async () => {
    const response = await client().getOrganization({ id: '42' });
    expect(toJson(GetOrganizationResponseSchema, response)).toEqual(viaJson);
    expect(fixture.calls[0]?.meta).toMatchObject({ protocol: 'grpc', host: `127.0.0.1:${servers.grpcPort}`, remoteAddress: '127.0.0.1' });
  });

  it('sends an AppError as its code with the ErrorDetail', async () => {
    const error = ConnectError.from(await client().getOrganization({ id: '999' }).catch((e: unknown) => e));
    expect(error.code).toBe(Code.NotFound);
    expect(error.findDetails(ErrorDetailSchema)).toMatchObject([{ id: 'org.not_found', message: 'Organization not found' }]);
  });

  it('serves only gRPC: Connect over HTTP/2 is refused before the invoker', async () => {
    const connect = createClient(PlatformOrganizations, createConnectTransport({ baseUrl: servers.grpcUrl, httpVersion: '2' }));
    const error = ConnectError.from(await connect.getOrganization({ id: '42' }).catch((e: unknown) => e));
    expect(error.code).toBe(Code.Unknown); // HTTP 415 Unsupported Media Type
    expect(fixture.calls).toHaveLength(0);
  });
});

describe('gRPC port with @grpc/grpc-js', () => {
  const path = '/platform.resources.org.v3alpha.PlatformOrganizations/GetOrganization';
  let grpcClient: Client;
  beforeAll(() => {
    grpcClient = new Client(`127.0.0.1:${servers.grpcPort}`, credentials.createInsecure());
  });
  afterAll(() => grpcClient.close());

  function getOrganization(id: string): Promise<GetOrganizationResponse> {
    return new Promise((resolve, reject) => {
      grpcClient.makeUnaryRequest<GetOrganizationRequest, GetOrganizationResponse>(
        path,
        (message) => Buffer.from(toBinary(GetOrganizationRequestSchema, message)),
        (bytes) => fromBinary(GetOrganizationResponseSchema, bytes),
        create(GetOrganizationRequestSchema, { id }),
        (error, response) => (error ? reject(error) : response ? resolve(response) : reject(new Error('no response'))),
      );
    });
  }

  it('answers like the JSON transport', async () => {
    expect(toJson(GetOrganizationResponseSchema, await getOrganization('42'))).toEqual(viaJson);
  });

  it('sends not_found as status 5 with the ErrorDetail in grpc-status-details-bin', async () => {
    const error = (await getOrganization('999').catch((e: unknown) => e)) as ServiceError;
    expect(error.code).toBe(5);
    expect(error.details).toBe('Organization not found (org.not_found)');
    const [bin] = error.metadata.get('grpc-status-details-bin');
    const status = fromBinary(StatusSchema, bin as Buffer);
    expect(status.code).toBe(5);
    const details = status.details.map((any) => anyUnpack(any, ErrorDetailSchema));
    expect(details).toMatchObject([{ id: 'org.not_found', message: 'Organization not found' }]);
  });
});

describe('startGrpcServer', () => {
  it('reports the bound port and closes', async () => {
    const server = await startGrpcServer({ host: '127.0.0.1', port: 0, api: async () => ({ services, invoke: fixture.invoke }) });
    expect(server.port).toBeGreaterThan(0);
    await server.close(50);
    await expect(startGrpcServer({ host: '127.0.0.1', port: servers.grpcPort, api: async () => ({ services, invoke: fixture.invoke }) })).rejects.toThrow(/EADDRINUSE/);
  });

  it('refuses request messages above maxMessageBytes before the invoker', async () => {
    const server = await startGrpcServer({ host: '127.0.0.1', port: 0, api: async () => ({ services, invoke: fixture.invoke }), maxMessageBytes: 64 });
    try {
      const client = createClient(PlatformOrganizations, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` }));
      const error = ConnectError.from(await client.createOrganization({ organization: { name: 'x'.repeat(100) } }).catch((e: unknown) => e));
      expect(error.code).toBe(Code.ResourceExhausted);
      expect(fixture.calls).toHaveLength(0);
    } finally {
      await server.close(50);
    }
  });
});
