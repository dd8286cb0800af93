/**
 * RequestContext rules (seed 000): exactly one of system / instance_id / instance_domain /
 * org_id / org_domain; absent → the Host's instance; another instance than the Host's → 403;
 * an org that does not exist in this instance → 404 (a foreign org is simply not found).
 */
import {
  invalidArgument,
  notFound,
  ORG_DOMAIN_SCOPE,
  orgKind,
  permissionDenied,
} from '../../actors/index.js';
import type { RequestContext } from '../gen/platform/object/v3alpha/object_pb.js';
import type { ApiServices, Scope } from './call-context.js';
import { normalizeHost } from '../query/tenant.js';
import type { InstanceInfo } from '../query/tenant.js';

export async function resolveScope(ctx: RequestContext | undefined, instance: InstanceInfo, services: ApiServices): Promise<Scope> {
  const context = ctx?.context;
  switch (context?.case) {
    case undefined:
      return { type: 'instance' };
    case 'system':
      if (!context.value) {
        throw invalidArgument('ctx.system_false', 'ctx.system must be true when set', {
          violations: [{ field: 'ctx.system', description: 'must be true' }],
        });
      }
      throw permissionDenied('ctx.system_forbidden', 'the system context needs a system user');
    case 'instanceId':
      if (context.value !== instance.id) throw permissionDenied('ctx.other_instance', 'the context names another instance');
      return { type: 'instance' };
    case 'instanceDomain':
      if (!instance.domains.includes(normalizeHost(context.value))) {
        throw permissionDenied('ctx.other_instance', 'the context names another instance');
      }
      return { type: 'instance' };
    case 'orgId':
      return orgScope(context.value, instance, services);
    case 'orgDomain': {
      const orgId = await services.actors.findUnique(instance.id, ORG_DOMAIN_SCOPE, context.value.toLowerCase());
      if (orgId === undefined) throw notFound('org.not_found', 'organization not found');
      return { type: 'org', orgId };
    }
    default:
      return { type: 'instance' };
  }
}

async function orgScope(orgId: string, instance: InstanceInfo, services: ApiServices): Promise<Scope> {
  const org = await services.actors.readRecord(instance.id, orgKind, orgId);
  if (org === undefined) throw notFound('org.not_found', 'organization not found');
  return { type: 'org', orgId };
}
