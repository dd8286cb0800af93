/**
 * The API's transports as the node starts them: nothing of them loaded (#13). The JSON/HTTP
 * routes join the router on the first request under their prefixes, Connect and gRPC-web on
 * the first request under RPC_PATH_PREFIX that no route matched, the gRPC port and
 * /openapi.json ask `transports()`. Each first call waits for its load once; a failed load is
 * tried again by the next call.
 */
import type { DeferredRoutes } from '../../http/router.js';
import type { HttpReply, HttpRequest } from '../../http/types.js';
import { lazyModule } from '../../runtime/lazy-module.js';
import type { ApiTransports } from './api-transports.js';

/** Every google.api.http rule of the services lies under these (the router checks it when they load). */
export const JSON_API_PREFIXES: readonly string[] = ['/resources/', '/settings/'];

/** Connect and gRPC-web paths are `/<package>.<Service>/<Method>`; every service's package starts with `platform.` (api-transports.ts checks it). */
export const RPC_PATH_PREFIX = '/platform.';

export interface LazyApi {
  /** The services and invoker every transport shares (built once, on the first call of any). */
  readonly transports: () => Promise<ApiTransports>;
  /** The JSON/HTTP routes, for the router's `deferred`. */
  readonly jsonRoutes: DeferredRoutes;
  /** The router's fallback: Connect and gRPC-web for RPC paths, undefined (not found) for any other. */
  readonly connect: (req: HttpRequest) => Promise<HttpReply | undefined> | undefined;
}

export function createLazyApi(load: () => Promise<ApiTransports>): LazyApi {
  const transports = lazyModule(load);
  const connect = lazyModule(async () => {
    const [{ services, invoke }, { createConnectFallback }] = await Promise.all([transports(), import('./connect-bridge.js')]);
    return createConnectFallback(services, invoke);
  });
  return {
    transports,
    jsonRoutes: {
      prefixes: JSON_API_PREFIXES,
      async load() {
        const [{ services, invoke }, { createJsonRoutes }] = await Promise.all([transports(), import('./json-transcoder.js')]);
        return createJsonRoutes(services, invoke);
      },
    },
    connect: (req) => (req.path.startsWith(RPC_PATH_PREFIX) ? connect().then((fallback) => fallback(req)) : undefined),
  };
}
