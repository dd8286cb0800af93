/**
 * One service, four ways in: JSON/HTTP, Connect and gRPC-web on the main port, gRPC on the
 * gRPC port — by real clients (@connectrpc/connect-node transports and @grpc/grpc-js) — give
 * equal results, and the same errors (401 / 403 / 404 as their gRPC codes).
 */
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GetOrganizationRequestSchema,
  GetOrganizationResponseSchema,
  PlatformOrganizations,
} from '../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { ErrorDetailSchema } from '../../src/gen/platform/v1/error_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';

let node: TestNode;
let orgId: string;

beforeAll(async () => {
  node = await startTestNode();
  orgId = (await api(node)('POST', '/resources/v3alpha/organizations', { name: 'Transport Org' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe.each([
  ['connect', () => createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
  ['grpc-web', () => createGrpcWebTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
  ['grpc', () => createGrpcTransport({ baseUrl: node.grpcUrl })],
] as [string, () => Transport][])('%s transport', (_name, transport) => {
  it('returns what JSON/HTTP returns', async () => {
    const client = createClient(PlatformOrganizations, transport());
    const viaRpc = await client.getOrganization({ id: orgId }, auth(node.adminToken));
    const viaJson = await api(node)('GET', `/resources/v3alpha/organizations/${orgId}`);
    expect(viaRpc.organization?.organization?.name).toBe('Transport Org');
    expect(viaRpc.organization?.details?.id).toBe(viaJson.body.organization.details.id);
    expect(String(viaRpc.organization?.details?.sequence)).toBe(viaJson.body.organization.details.sequence);
    expect(viaRpc.organization?.primaryDomain).toBe(viaJson.body.organization.primaryDomain);

    const search = await client.searchOrganizations({ filters: [{ filter: { case: 'inIds', value: { ids: [orgId] } } }] }, auth(node.adminToken));
    expect(search.result.map((o) => o.details?.id)).toEqual([orgId]);
  });

  it('maps errors to gRPC codes with the error detail', async () => {
    const client = createClient(PlatformOrganizations, transport());
    const missing = await client.getOrganization({ id: '4242' }, auth(node.adminToken)).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConnectError);
    expect((missing as ConnectError).code).toBe(Code.NotFound);
    expect((missing as ConnectError).findDetails(ErrorDetailSchema)[0]?.id).toBe('org.not_found');
    const anonymous = await client.getOrganization({ id: orgId }).catch((e: unknown) => e);
    expect((anonymous as ConnectError).code).toBe(Code.Unauthenticated);
    const invalid = await client.createOrganization({ organization: { name: '' } }, auth(node.adminToken)).catch((e: unknown) => e);
    expect((invalid as ConnectError).code).toBe(Code.InvalidArgument);
  });
});

describe('@grpc/grpc-js client', () => {
  it('calls GetOrganization over HTTP/2 with equal results', async () => {
    // Tenancy is by authority: connect to 127.0.0.1 but present the instance's domain.
    const client = new grpc.Client(`127.0.0.1:${node.grpcPort}`, grpc.credentials.createInsecure(), {
      'grpc.default_authority': `localhost:${node.grpcPort}`,
    });
    const path = `/${PlatformOrganizations.typeName}/GetOrganization`;
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${node.adminToken}`);
    const unary = <I extends DescMessage, O extends DescMessage>(input: I, output: O, request: MessageShape<I>, md: grpc.Metadata) =>
      new Promise<MessageShape<O>>((resolve, reject) => {
        client.makeUnaryRequest(
          path,
          (m: MessageShape<I>) => Buffer.from(toBinary(input, m)),
          (b: Buffer) => fromBinary(output, b),
          request,
          md,
          (err, value) => (err ? reject(err) : resolve(value!)),
        );
      });
    const response = await unary(GetOrganizationRequestSchema, GetOrganizationResponseSchema, create(GetOrganizationRequestSchema, { id: orgId }), metadata);
    expect(response.organization?.organization?.name).toBe('Transport Org');
    const failure = await unary(GetOrganizationRequestSchema, GetOrganizationResponseSchema, create(GetOrganizationRequestSchema, { id: orgId }), new grpc.Metadata()).catch(
      (e: grpc.ServiceError) => e,
    );
    expect((failure as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);
    client.close();
  });
});
