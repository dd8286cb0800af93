/**
 * gRPC health and server reflection on the gRPC port, used by @grpc/grpc-js as a client
 * (issue #16): Check and Watch (SERVING, NOT_SERVING once the server starts closing), and
 * reflection v1 / v1alpha answering from the descriptors the port serves.
 */
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Client, credentials, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcServer } from '../../../src/api/transport/grpc-server.js';
import { HealthCheckRequestSchema, HealthCheckResponse_ServingStatus as Status, HealthCheckResponseSchema } from '../../../src/gen/grpc/health/v1/health_pb.js';
import * as v1 from '../../../src/gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../../src/gen/grpc/reflection/v1alpha/reflection_pb.js';
import { PlatformOrganizations } from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { createOrgFixture } from './org-invoker.fixture.js';
import { services } from './servers.fixture.js';

const CHECK = '/grpc.health.v1.Health/Check';
const WATCH = '/grpc.health.v1.Health/Watch';

async function start(): Promise<{ server: GrpcServer; client: Client }> {
  const server = await startGrpcServer({ host: '127.0.0.1', port: 0, api: async () => ({ services, invoke: createOrgFixture().invoke }) });
  return { server, client: new Client(`127.0.0.1:${server.port}`, credentials.createInsecure()) };
}

const encode = <D extends DescMessage>(schema: D) => (message: MessageShape<D>) => Buffer.from(toBinary(schema, message));
const decode = <D extends DescMessage>(schema: D) => (bytes: Buffer) => fromBinary(schema, bytes);

function check(client: Client, service: string): Promise<Status> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(CHECK, encode(HealthCheckRequestSchema), decode(HealthCheckResponseSchema), create(HealthCheckRequestSchema, { service }), (err, value) =>
      err ? reject(err) : resolve(value!.status),
    );
  });
}

describe('grpc.health.v1.Health', () => {
  let server: GrpcServer;
  let client: Client;
  beforeAll(async () => ({ server, client } = await start()));
  afterAll(async () => {
    client.close();
    await server.close(100);
  });

  it('Check: SERVING for the server and each served service, NOT_FOUND for another', async () => {
    expect(await check(client, '')).toBe(Status.SERVING);
    expect(await check(client, PlatformOrganizations.typeName)).toBe(Status.SERVING);
    const unknown = await check(client, 'no.such.Service').catch((e: ServiceError) => e);
    expect((unknown as ServiceError).code).toBe(grpcStatus.NOT_FOUND);
  });

  it('Check: an undecodable request is INVALID_ARGUMENT', async () => {
    const error = await new Promise<ServiceError>((resolve, reject) => {
      client.makeUnaryRequest(CHECK, (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0x0a, 0x05, 0x61]), (err) => (err ? resolve(err) : reject(new Error('answered'))));
    });
    expect(error.code).toBe(grpcStatus.INVALID_ARGUMENT);
  });

  it('Watch: SERVING, then NOT_SERVING as soon as the server starts closing', async () => {
    const own = await start();
    const statuses: Status[] = [];
    const call = own.client.makeServerStreamRequest(WATCH, encode(HealthCheckRequestSchema), decode(HealthCheckResponseSchema), create(HealthCheckRequestSchema, { service: '' }));
    const ended = new Promise<void>((resolve) => {
      call.on('data', (response: MessageShape<typeof HealthCheckResponseSchema>) => {
        statuses.push(response.status);
        if (statuses.length === 1) void own.server.close(2_000);
      });
      call.on('error', () => resolve());
      call.on('end', () => resolve());
    });
    await ended;
    own.client.close();
    expect(statuses).toEqual([Status.SERVING, Status.NOT_SERVING]);
  });
});

type Reflection = typeof v1 | typeof v1alpha;

function reflect(client: Client, version: Reflection, path: string, requests: MessageInitShape<typeof v1.ServerReflectionRequestSchema>[]): Promise<MessageShape<typeof v1.ServerReflectionResponseSchema>[]> {
  const requestSchema = version.ServerReflectionRequestSchema as typeof v1.ServerReflectionRequestSchema;
  const responseSchema = version.ServerReflectionResponseSchema as typeof v1.ServerReflectionResponseSchema;
  return new Promise((resolve, reject) => {
    const answers: MessageShape<typeof v1.ServerReflectionResponseSchema>[] = [];
    const call = client.makeBidiStreamRequest(path, encode(requestSchema), decode(responseSchema));
    call.on('data', (answer: MessageShape<typeof v1.ServerReflectionResponseSchema>) => answers.push(answer));
    call.on('error', reject);
    call.on('end', () => resolve(answers));
    for (const request of requests) call.write(create(requestSchema, request));
    call.end();
  });
}

describe.each([
  ['v1', v1, '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo'],
  ['v1alpha', v1alpha, '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo'],
] as [string, Reflection, string][])('grpc.reflection.%s', (_name, version, path) => {
  let server: GrpcServer;
  let client: Client;
  beforeAll(async () => ({ server, client } = await start()));
  afterAll(async () => {
    client.close();
    await server.close(100);
  });

  it('lists the served services, health and reflection included', async () => {
    const [answer] = await reflect(client, version, path, [{ host: 'h', messageRequest: { case: 'listServices', value: '*' } }]);
    expect(answer?.validHost).toBe('h');
    expect(answer?.messageResponse.case).toBe('listServicesResponse');
    const names = answer?.messageResponse.case === 'listServicesResponse' ? answer.messageResponse.value.service.map((s) => s.name) : [];
    expect(names.sort()).toEqual([PlatformOrganizations.typeName, 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'].sort());
  });

  it('answers a symbol (service, method) with its file and imports: enough to rebuild the service', async () => {
    const answers = await reflect(client, version, path, [
      { messageRequest: { case: 'fileContainingSymbol', value: PlatformOrganizations.typeName } },
      { messageRequest: { case: 'fileContainingSymbol', value: `${PlatformOrganizations.typeName}.GetOrganization` } },
      { messageRequest: { case: 'fileByFilename', value: PlatformOrganizations.file.proto.name } },
      { messageRequest: { case: 'fileByFilename', value: 'no/such.proto' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'no.such.Symbol' } },
    ]);
    expect(answers.map((a) => a.messageResponse.case)).toEqual(['fileDescriptorResponse', 'fileDescriptorResponse', 'fileDescriptorResponse', 'errorResponse', 'errorResponse']);
    for (const answer of answers.slice(0, 3)) {
      if (answer.messageResponse.case !== 'fileDescriptorResponse') throw new Error('no files');
      const files = answer.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
      expect(files[0]?.name).toBe(PlatformOrganizations.file.proto.name);
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: importsFirst(files) })); // every import is among the answer's files
      const service = registry.getService(PlatformOrganizations.typeName);
      expect(service?.methods.map((m) => m.name)).toEqual(PlatformOrganizations.methods.map((m) => m.name));
    }
    const missing = answers[3]?.messageResponse;
    expect(missing?.case === 'errorResponse' ? missing.value.errorCode : -1).toBe(grpcStatus.NOT_FOUND);
  });
});

/** The files ordered so that each comes after the files it imports. */
function importsFirst(files: readonly FileDescriptorProto[]): FileDescriptorProto[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const ordered: FileDescriptorProto[] = [];
  const visit = (file: FileDescriptorProto | undefined): void => {
    if (file === undefined || ordered.includes(file)) return;
    for (const name of file.dependency) visit(byName.get(name));
    ordered.push(file);
  };
  for (const file of files) visit(file);
  return ordered;
}
