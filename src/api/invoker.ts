/**
 * The RpcInvoker every transport calls: resolve the instance from the Host, authenticate
 * the bearer token, resolve the request context, check the RPC's permission, run the
 * handler. One definition per RPC; the steps are the same for every transport.
 */
import { create, type DescMessage, type DescMethod, type DescMethodUnary, type Message, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { AppError, notFound, permissionDenied, unimplemented } from '../../actors/index.js';
import type { RequestContext } from '../gen/platform/object/v3alpha/object_pb.js';
import { authenticate, callerCan, type Caller } from './auth.js';
import type { ApiServices, CallContext, Scope } from './call-context.js';
import { resolveScope } from './request-context.js';
import type { CallMeta, RpcInvoker, RpcResult } from './rpc.js';
import type { InstanceInfo } from './tenant.js';

export interface RpcDefinition<I extends DescMessage, O extends DescMessage> {
  readonly method: DescMethodUnary<I, O>;
  /** Permission required before the handler runs (`authenticated` for any caller). */
  readonly permission: string;
  /** The organization the permission is checked in, besides instance-wide roles. */
  orgOf?(request: MessageShape<I>, scope: Scope): string | undefined;
  /** 201 instead of 200 on the JSON transport. */
  readonly created?: boolean;
  handle(request: MessageShape<I>, call: CallContext): Promise<MessageInitShape<O>>;
}

/** Helper that keeps the request/response types of a definition inferred. */
export function defineRpc<I extends DescMessage, O extends DescMessage>(definition: RpcDefinition<I, O>): RpcDefinition<I, O> {
  return definition;
}

/** A definition with its message types erased; each is only ever called with its own method's messages. */
export type AnyRpcDefinition = RpcDefinition<DescMessage, DescMessage>;

export function createInvoker(definitions: readonly AnyRpcDefinition[], services: ApiServices): RpcInvoker {
  const byMethod = new Map<string, AnyRpcDefinition>();
  for (const definition of definitions) byMethod.set(methodKey(definition.method), definition);

  return async (method, request, meta) => {
    try {
      return await invokeOne(byMethod.get(methodKey(method)), request, meta, services);
    } catch (error) {
      // Typed errors are ordinary answers; anything else is a bug: log it in full, answer `internal`.
      if (!(error instanceof AppError)) services.logger.error({ err: error, method: methodKey(method), protocol: meta.protocol }, 'rpc failed');
      throw error;
    }
  };
}

async function invokeOne(definition: AnyRpcDefinition | undefined, request: Message, meta: CallMeta, services: ApiServices): Promise<RpcResult> {
  if (definition === undefined) throw unimplemented('rpc.unimplemented', 'this method is not implemented');
  const instance = await resolveInstance(services, meta.host);
  const caller = await authenticate(services.actors, instance.id, meta.headers.authorization, services.clock.now());
  const scope = await resolveScope((request as { ctx?: RequestContext }).ctx, instance, services);
  let status = definition.created === true ? 201 : 200;
  const call = createCallContext({ instance, caller, scope, services, meta, setStatus: (s) => (status = s) });
  const orgId = definition.orgOf?.(request, scope) ?? (scope.type === 'org' ? scope.orgId : undefined);
  if (definition.permission !== 'authenticated') await call.require(definition.permission, orgId);
  const reply = await definition.handle(request, call);
  return { message: create(definition.method.output, reply), status };
}

function methodKey(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}

async function resolveInstance(services: ApiServices, host: string): Promise<InstanceInfo> {
  const instance = await services.tenants.resolveHost(host);
  if (instance === undefined) throw notFound('instance.not_found', 'no instance is configured for this host');
  return instance;
}

function createCallContext(parts: {
  instance: InstanceInfo;
  caller: Caller;
  scope: Scope;
  services: ApiServices;
  meta: CallMeta;
  setStatus: (status: number) => void;
}): CallContext {
  const { instance, caller, services } = parts;
  const can = (permission: string, orgId?: string) => callerCan(services.actors, instance.id, caller, permission, orgId);
  return {
    ...parts,
    can,
    async require(permission, orgId) {
      if (!(await can(permission, orgId))) throw permissionDenied('auth.permission_denied', `missing permission ${permission}`);
    },
  };
}
