/**
 * What a handler gets besides its request: the resolved instance and scope, the caller,
 * the actor system and the node's services. Handlers never see transport details.
 */
import type { RateLimits } from '../http/rate-limits.js';
import type { ActorSystem, Clock, Logger } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import type { ExecutionServices } from '../executions/runtime.js';
import type { ApiCallers } from '../query/api-callers.js';
import type { AccessTokenAuthenticator, Caller } from '../query/auth.js';
import type { CallMeta } from './rpc.js';
import type { InstanceInfo, TenantDirectory } from '../query/tenant.js';

/** The context a request runs in (seed 000 RequestContext, resolved). */
export type Scope = { readonly type: 'instance' } | { readonly type: 'org'; readonly orgId: string } | { readonly type: 'system' };

/** Node-wide services the API handlers use. */
export interface ApiServices {
  readonly config: Config;
  readonly actors: ActorSystem;
  readonly tenants: TenantDirectory;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Request/response executions around handlers, the condition lists, plan invalidation. */
  readonly executions: ExecutionServices;
  /** Accepts OAuth access tokens of this server (audience `platform`) besides PATs. */
  readonly accessTokens?: AccessTokenAuthenticator;
  /** PATs held by the instances' read states (src/query/api-callers.ts); every call reads the store when absent. */
  readonly callers?: ApiCallers;
  /** Calls per authenticated caller (TESSERA_RATE_LIMIT_API_CALLER); none when absent. */
  readonly limits?: RateLimits;
}

export interface CallContext {
  readonly instance: InstanceInfo;
  readonly caller: Caller;
  readonly scope: Scope;
  readonly services: ApiServices;
  readonly meta: CallMeta;
  /** True when the caller holds the permission instance-wide, in `orgId` or in `projectId`. */
  can(permission: string, orgId?: string, projectId?: string): Promise<boolean>;
  /** Throws permission_denied unless `can`. */
  require(permission: string, orgId?: string, projectId?: string): Promise<void>;
  /** Overrides the JSON transport's success status (e.g. 201 for a put that created). */
  setStatus(status: number): void;
}
