/**
 * The gRPC port's handlers (grpc-server.ts): the API's methods (gRPC protocol only), gRPC health
 * and server reflection over the same descriptors. Built on the port's first call, not at start:
 * the router, one handler per method, and the reflection and health descriptors stay out of an
 * idle node's memory (#13).
 */
import type { DescService } from '@bufbuild/protobuf';
import { createConnectRouter } from '@connectrpc/connect';
import type { UniversalHandler } from '@connectrpc/connect/protocol';
import type { RpcInvoker } from '../rpc.js';
import { ACCEPT_COMPRESSION } from './connect-bridge.js';
import { createHealthState, type HealthState } from './grpc-health.js';
import { createReflectionIndex, registerReflection } from './grpc-reflection.js';
import { registerServices } from './rpc-registration.js';
import { Health } from '../../gen/grpc/health/v1/health_pb.js';
import { ServerReflection } from '../../gen/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1Alpha } from '../../gen/grpc/reflection/v1alpha/reflection_pb.js';

export interface GrpcRouter {
  readonly handlers: ReadonlyMap<string, UniversalHandler>;
  readonly health: HealthState;
}

export function buildGrpcRouter(options: { readonly services: readonly DescService[]; readonly invoke: RpcInvoker; readonly maxMessageBytes: number; readonly shutdownSignal: AbortSignal }): GrpcRouter {
  const router = createConnectRouter({
    connect: false,
    grpcWeb: false,
    acceptCompression: ACCEPT_COMPRESSION,
    readMaxBytes: options.maxMessageBytes,
    shutdownSignal: options.shutdownSignal,
  });
  registerServices(router, options.services, options.invoke, 'streamed');
  const health = createHealthState(options.services.map((service) => service.typeName));
  health.register(router);
  registerReflection(router, createReflectionIndex([...options.services, Health, ServerReflection, ServerReflectionV1Alpha]));
  return { handlers: new Map(router.handlers.map((h) => [h.requestPath, h])), health };
}
