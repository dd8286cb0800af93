/**
 * gRPC server reflection (grpc.reflection.v1 and its predecessor v1alpha, same messages) on
 * the gRPC port, answered from the very descriptors the port serves: the service list, and a
 * file by name, by symbol or by extension together with the files it imports (grpc/grpc doc
 * server-reflection.md). Lets grpcurl and IDE clients call the node without .proto files.
 */
import { create, createRegistry, toBinary, type DescFile, type DescMessage, type DescService, type MessageInitShape, type Registry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import * as v1 from '../../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../gen/grpc/reflection/v1alpha/reflection_pb.js';
import { malformedRequest } from './rpc-registration.js';
import { toConnectError } from './connect-error.js';

type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;
type Response = MessageInitShape<typeof v1.ServerReflectionResponseSchema>;

/** What every answer repeats of its request. */
interface Echo {
  readonly validHost: string;
  readonly originalRequest: MessageInitShape<typeof v1.ServerReflectionRequestSchema>;
}

/** What reflection knows: every served service and every file they come from, imports included. */
export interface ReflectionIndex {
  readonly serviceNames: readonly string[];
  readonly files: ReadonlyMap<string, DescFile>;
  readonly registry: Registry;
}

export function createReflectionIndex(services: readonly DescService[]): ReflectionIndex {
  const files = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file); // the name with `.proto`, as clients ask for it
    for (const dependency of file.dependencies) visit(dependency);
  };
  for (const service of services) visit(service.file);
  return { serviceNames: services.map((s) => s.typeName), files, registry: createRegistry(...files.values()) };
}

/** Registers both reflection versions on `router`. */
export function registerReflection(router: ConnectRouter, index: ReflectionIndex): void {
  router.service(v1.ServerReflection, { serverReflectionInfo: (requests) => answerAll(index, requests) });
  router.service(v1alpha.ServerReflection, { serverReflectionInfo: (requests) => answerAll(index, requests) as AsyncIterable<MessageInitShape<typeof v1alpha.ServerReflectionResponseSchema>> });
}

async function* answerAll(index: ReflectionIndex, requests: AsyncIterable<Request>): AsyncIterable<Response> {
  const iterator = requests[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Request>;
    try {
      next = await iterator.next();
    } catch (error) {
      if (error instanceof ConnectError && (error.code === Code.Canceled || error.code === Code.DeadlineExceeded)) throw error;
      throw toConnectError(malformedRequest(error)); // an undecodable request is the client's error
    }
    if (next.done === true) return;
    yield answer(index, next.value);
  }
}

function answer(index: ReflectionIndex, request: Request): Response {
  // v1alpha's messages have v1's fields: the init shape carries either.
  const base: Echo = { validHost: request.host, originalRequest: { host: request.host, messageRequest: request.messageRequest } as Echo['originalRequest'] };
  const ask = request.messageRequest;
  switch (ask.case) {
    case 'listServices':
      return { ...base, messageResponse: { case: 'listServicesResponse', value: { service: index.serviceNames.map((name) => ({ name })) } } };
    case 'fileByFilename':
      return withFile(base, index.files.get(ask.value), `file ${ask.value} not found`);
    case 'fileContainingSymbol':
      return withFile(base, fileOfSymbol(index, ask.value), `symbol ${ask.value} not found`);
    case 'fileContainingExtension': {
      const extendee = index.registry.getMessage(ask.value.containingType);
      const extension = extendee === undefined ? undefined : index.registry.getExtensionFor(extendee, ask.value.extensionNumber);
      return withFile(base, extension?.file, `extension ${ask.value.extensionNumber} of ${ask.value.containingType} not found`);
    }
    case 'allExtensionNumbersOfType': {
      const extendee = index.registry.getMessage(ask.value);
      if (extendee === undefined) return failure(base, Code.NotFound, `type ${ask.value} not found`);
      return { ...base, messageResponse: { case: 'allExtensionNumbersResponse', value: { baseTypeName: ask.value, extensionNumber: extensionNumbersOf(index, extendee) } } };
    }
    default:
      return failure(base, Code.InvalidArgument, 'the request names no reflection query');
  }
}

/** A message, enum, service or extension by full name; a method or field by its parent's. */
function fileOfSymbol(index: ReflectionIndex, symbol: string): DescFile | undefined {
  const found = index.registry.get(symbol);
  if (found !== undefined) return found.file;
  const parent = symbol.slice(0, symbol.lastIndexOf('.'));
  return parent === '' ? undefined : index.registry.get(parent)?.file;
}

function extensionNumbersOf(index: ReflectionIndex, extendee: DescMessage): number[] {
  const numbers: number[] = [];
  for (const type of index.registry) if (type.kind === 'extension' && type.extendee.typeName === extendee.typeName) numbers.push(type.number);
  return numbers.sort((a, b) => a - b);
}

/** The file and, as the protocol asks, every file it imports (each once). */
function withFile(base: Echo, file: DescFile | undefined, missing: string): Response {
  if (file === undefined) return failure(base, Code.NotFound, missing);
  const ordered: DescFile[] = [];
  const visit = (f: DescFile): void => {
    if (ordered.includes(f)) return;
    ordered.push(f);
    for (const dependency of f.dependencies) visit(dependency);
  };
  visit(file);
  const fileDescriptorProto = ordered.map((f) => toBinary(FileDescriptorProtoSchema, create(FileDescriptorProtoSchema, f.proto)));
  return { ...base, messageResponse: { case: 'fileDescriptorResponse', value: { fileDescriptorProto } } };
}

function failure(base: Echo, code: Code, message: string): Response {
  return { ...base, messageResponse: { case: 'errorResponse', value: { errorCode: code, errorMessage: message } } };
}
