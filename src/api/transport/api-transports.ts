/**
 * What every API transport shares, built on the API's first call (lazy-api.ts, #13): the
 * services' descriptors, the invoker and the execution catalog (the condition lists name the
 * services and methods). Loading this module loads @bufbuild/protobuf and src/gen.
 */
import { ProgrammerError } from '../../../actors/index.js';
import type { DescService } from '@bufbuild/protobuf';
import { createExecutionCatalog } from '../../executions/catalog.js';
import type { ExecutionHooks } from '../../executions/runtime.js';
import type { ApiServices } from '../call-context.js';
import { createInvoker, type RpcDefinitions } from '../invoker.js';
import type { RpcInvoker } from '../rpc.js';
import { SERVICES } from '../services.js';
import { RPC_PATH_PREFIX } from './lazy-api.js';

export interface ApiTransports {
  readonly services: readonly DescService[];
  readonly invoke: RpcInvoker;
}

export interface ApiTransportOptions {
  readonly definitions: RpcDefinitions;
  /** The handlers' services; the execution catalog is added here. */
  readonly services: Omit<ApiServices, 'executions'> & { readonly executions: ExecutionHooks };
  /** Wraps the invoker (tracing). */
  readonly wrap: (invoke: RpcInvoker) => RpcInvoker;
}

export function createApiTransports(options: ApiTransportOptions): ApiTransports {
  // The main port sends only paths under RPC_PATH_PREFIX to Connect / gRPC-web (lazy-api.ts).
  const outside = SERVICES.filter((service) => !`/${service.typeName}/`.startsWith(RPC_PATH_PREFIX));
  if (outside.length > 0) throw new ProgrammerError(`services outside ${RPC_PATH_PREFIX}: ${outside.map((s) => s.typeName).join(', ')}; widen RPC_PATH_PREFIX`);
  const hooks = options.services.executions;
  const executions = {
    catalog: createExecutionCatalog(SERVICES),
    beforeHandle: hooks.beforeHandle.bind(hooks),
    afterHandle: hooks.afterHandle.bind(hooks),
  };
  return { services: SERVICES, invoke: options.wrap(createInvoker(options.definitions, { ...options.services, executions })) };
}
