/**
 * What every OIDC endpoint does before its own steps: find the instance of the Host header
 * (unknown host → 404 `instance.not_found`, as the APIs answer; blocked → 429), and turn typed
 * errors into JSON replies. Anything that is not an AppError is rethrown for the adapter to log.
 */
import { AppError, notFound } from '../../../actors/index.js';
import { assertInstanceUsable, type InstanceInfo, type TenantDirectory } from '../../query/tenant.js';
import { toWireError } from '../../http/error-mapping.js';
import { json } from '../../http/reply.js';
import type { RouteHandler } from '../../http/router.js';
import type { HttpReply, HttpRequest } from '../../http/types.js';

/** The instance the request's Host names. */
export async function requireInstance(tenants: TenantDirectory, req: HttpRequest): Promise<InstanceInfo> {
  const instance = await tenants.resolveHost(req.headers.host ?? '');
  if (instance === undefined) throw notFound('instance.not_found', 'no instance is configured for this host');
  const notes = req.notes;
  if (notes !== undefined) notes.instanceId = instance.id;
  assertInstanceUsable(instance);
  return instance;
}

/**
 * The instance of the Host when this node knows it and it is usable (no store read, no await),
 * noted on the request as `requireInstance` does; undefined otherwise (the caller then takes the
 * path of `requireInstance`, which reads the store, answers 404 or 429).
 */
export function knownUsableInstance(tenants: TenantDirectory, req: HttpRequest): InstanceInfo | undefined {
  const instance = tenants.knownHost(req.headers.host ?? '');
  if (instance === undefined || instance.blocked) return undefined;
  const notes = req.notes;
  if (notes !== undefined) notes.instanceId = instance.id;
  return instance;
}

/** Wraps a handler so typed errors become the rpc-status JSON reply of their kind. */
export function withErrorReplies(handler: (req: HttpRequest) => Promise<HttpReply>): RouteHandler {
  return (req) =>
    handler(req).catch((error: unknown) => {
      if (!(error instanceof AppError)) throw error;
      const wire = toWireError(error);
      return json(wire.httpStatus, wire.body, { 'cache-control': 'no-store', ...wire.headers });
    });
}
