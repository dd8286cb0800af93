/**
 * The RpcInvoker every transport calls: resolve the instance from the Host (a blocked one
 * answers 429), authenticate the bearer token, resolve the request context, check the RPC's
 * permission, run the handler. One definition per RPC; the steps are the same for every
 * transport. System-context RPCs (`context: 'system'`) skip the Host and take system users.
 */
import { create, type DescMessage, type DescMethod, type DescMethodUnary, type Message, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { AppError, notFound, permissionDenied, unimplemented } from '../../actors/index.js';
import type { RequestContext } from '../gen/platform/object/v3alpha/object_pb.js';
import { authenticate, callerCan, type Caller } from '../query/auth.js';
import type { ApiServices, CallContext, Scope } from './call-context.js';
import { resolveScope } from './request-context.js';
import type { CallMeta, RpcInvoker, RpcResult } from './rpc.js';
import {
  authenticateSystemUser,
  createSystemUserDirectory,
  systemCallerCan,
  type SystemCallContext,
  type SystemUserDirectory,
} from './system-auth.js';
import { assertInstanceUsable, type InstanceInfo } from '../query/tenant.js';

export interface RpcDefinition<I extends DescMessage, O extends DescMessage> {
  readonly method: DescMethodUnary<I, O>;
  /** Instance context (the default): the Host selects the instance. */
  readonly context?: 'instance';
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

/**
 * An RPC of the system context: the instance is not resolved from the Host (it works on any
 * Host), the caller must be a system user, permissions come from the system roles.
 */
export interface SystemRpcDefinition<I extends DescMessage, O extends DescMessage> {
  readonly method: DescMethodUnary<I, O>;
  readonly context: 'system';
  /** A system permission (`system.instance.read`, ...). */
  readonly permission: string;
  readonly created?: boolean;
  handle(request: MessageShape<I>, call: SystemCallContext): Promise<MessageInitShape<O>>;
}

export function defineSystemRpc<I extends DescMessage, O extends DescMessage>(
  definition: Omit<SystemRpcDefinition<I, O>, 'context'>,
): SystemRpcDefinition<I, O> {
  return { ...definition, context: 'system' };
}

/** A definition with its message types erased; each is only ever called with its own method's messages. */
export type AnyRpcDefinition = RpcDefinition<DescMessage, DescMessage> | SystemRpcDefinition<DescMessage, DescMessage>;

/** The definitions, or how to load them: the node loads them on the first call (#13), awaited once. */
export type RpcDefinitions = readonly AnyRpcDefinition[] | (() => Promise<readonly AnyRpcDefinition[]>);

export function createInvoker(definitions: RpcDefinitions, services: ApiServices): RpcInvoker {
  const index = (list: readonly AnyRpcDefinition[]) => {
    const byMethod = new Map<string, AnyRpcDefinition>();
    for (const definition of list) byMethod.set(methodKey(definition.method), definition);
    return byMethod;
  };
  let byMethod = typeof definitions === 'function' ? undefined : index(definitions);
  const load = typeof definitions === 'function' ? async () => (byMethod = index(await definitions())) : undefined;
  const systemUsers = createSystemUserDirectory(services.config);

  return async (method, request, meta) => {
    try {
      const definition = (byMethod ?? (await load!())).get(methodKey(method));
      if (definition?.context === 'system') return await invokeSystem(definition, request, meta, services, systemUsers);
      return await invokeOne(definition, request, meta, services);
    } catch (error) {
      // Typed errors are ordinary answers; anything else is a bug: log it in full, answer `internal`.
      if (!(error instanceof AppError) || error.kind === 'internal') {
        services.logger.error({ err: error, requestId: meta.requestId, method: methodKey(method), protocol: meta.protocol }, 'rpc failed');
      }
      throw error;
    }
  };
}

async function invokeOne(
  definition: RpcDefinition<DescMessage, DescMessage> | undefined,
  request: Message,
  meta: CallMeta,
  services: ApiServices,
): Promise<RpcResult> {
  if (definition === undefined) throw unimplemented('rpc.unimplemented', 'this method is not implemented');
  const instance = await resolveInstance(services, meta.host);
  const notes = meta.notes;
  if (notes !== undefined) notes.instanceId = instance.id;
  assertInstanceUsable(instance);
  // Every read of this request through one position check (PostgreSQL; docs/operations/postgres.md "Round trips").
  const actors = services.actors.forRequest(instance.id);
  if (actors !== services.actors) services = { ...services, actors };
  const caller = await authenticate(services.actors, instance.id, meta.headers.authorization, services.clock.now(), services.accessTokens, services.callers);
  if (notes !== undefined) notes.userId = caller.userId;
  if (services.limits !== undefined) await services.limits.consume(instance.id, 'apiCaller', `${instance.id}\u0000${caller.userId}`);
  const scope = await resolveScope((request as { ctx?: RequestContext }).ctx, instance, services);
  let status = definition.created === true ? 201 : 200;
  const call = createCallContext({ instance, caller, scope, services, meta, setStatus: (s) => (status = s) });
  const orgId = definition.orgOf?.(request, scope) ?? (scope.type === 'org' ? scope.orgId : undefined);
  if (definition.permission !== 'authenticated') await call.require(definition.permission, orgId);
  // Request/response executions (src/executions): one Map lookup when the instance has none.
  const input = await services.executions.beforeHandle(call, definition.method, request);
  const reply = await definition.handle(input, call);
  const output = await services.executions.afterHandle(call, definition.method, input, create(definition.method.output, reply));
  return { message: output, status };
}

async function invokeSystem(
  definition: SystemRpcDefinition<DescMessage, DescMessage>,
  request: Message,
  meta: CallMeta,
  services: ApiServices,
  systemUsers: SystemUserDirectory,
): Promise<RpcResult> {
  const caller = await authenticateSystemUser(systemUsers, services, meta);
  if (meta.notes !== undefined) meta.notes.userId = `system:${caller.name}`;
  let status = definition.created === true ? 201 : 200;
  const can = (permission: string) => systemCallerCan(caller, permission);
  const call: SystemCallContext = {
    caller,
    services,
    meta,
    creator: `system:${caller.name}`,
    can,
    require(permission) {
      if (!can(permission)) throw permissionDenied('auth.permission_denied', `missing permission ${permission}`);
    },
    setStatus: (s) => (status = s),
  };
  call.require(definition.permission);
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
  const { instance, caller, scope, services, meta, setStatus } = parts;
  const can = (permission: string, orgId?: string, projectId?: string) =>
    callerCan(services.actors, instance.id, caller, permission, orgId, projectId);
  // Each property named, not `...parts` then more: on Node 20's V8 a spread-then-extended literal
  // often got maps of its own per call, whose descriptor arrays every scavenge then kept
  // (~570 bytes promoted per request; bench/README.md, "What survives a scavenge", GET organization).
  return {
    instance,
    caller,
    scope,
    services,
    meta,
    setStatus,
    can,
    async require(permission, orgId, projectId) {
      if (!(await can(permission, orgId, projectId))) throw permissionDenied('auth.permission_denied', `missing permission ${permission}`);
    },
  };
}
