/**
 * Starts the main port (JSON routes + Connect/gRPC-web fallback through the real router and the
 * real node:http adapter) and the gRPC port via startGrpcServer, both on ephemeral ports of
 * 127.0.0.1, all serving the given invoker.
 */
import { createConnectFallback } from '../../../src/api/transport/connect-bridge.js';
import { startGrpcServer } from '../../../src/api/transport/grpc-server.js';
import { createJsonRoutes } from '../../../src/api/transport/json-transcoder.js';
import type { RpcInvoker } from '../../../src/api/rpc.js';
import { PlatformOrganizations } from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { nodeAdapter } from '../../../src/http/node-adapter.js';
import { createRouter } from '../../../src/http/router.js';
import type { HttpAdapter } from '../../../src/http/types.js';

export const services = [PlatformOrganizations] as const;

export interface StartedServers {
  readonly baseUrl: string;
  readonly grpcUrl: string;
  readonly grpcPort: number;
  close(): Promise<void>;
}

export async function startServers(invoke: RpcInvoker, adapter: HttpAdapter = nodeAdapter): Promise<StartedServers> {
  const router = createRouter(createJsonRoutes(services, invoke), {
    fallback: createConnectFallback(services, invoke),
    corsPathPrefixes: [],
  });
  const main = await adapter.listen(router, { host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20, bodyTimeoutMs: 5_000, maxHeaderCount: 40, maxHeaderBytes: 32_768 });
  const grpc = await startGrpcServer({ host: '127.0.0.1', port: 0, api: async () => ({ services, invoke }) });
  return {
    baseUrl: `http://127.0.0.1:${main.port}`,
    grpcUrl: `http://127.0.0.1:${grpc.port}`,
    grpcPort: grpc.port,
    close: async () => {
      await Promise.all([main.close(100), grpc.close(100)]);
    },
  };
}
