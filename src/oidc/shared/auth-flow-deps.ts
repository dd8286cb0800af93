/** What the authorization endpoint and the login UI need from the composition root. */
import type { ActorSystem, Clock, TtlStore } from '../../../actors/index.js';
import type { TenantDirectory } from '../../api/tenant.js';
import type { Config } from '../../config/schema.js';
import type { Signer } from '../../crypto/signer.js';

export interface AuthFlowDeps {
  readonly config: Config;
  readonly tenants: TenantDirectory;
  readonly actors: ActorSystem;
  readonly ttl: TtlStore;
  readonly clock: Clock;
  readonly signer: Signer;
}

/** The authorization flow's view of the OAuth endpoints' dependencies. */
export function toAuthFlowDeps(deps: Omit<AuthFlowDeps, 'ttl'>): AuthFlowDeps {
  return { config: deps.config, tenants: deps.tenants, actors: deps.actors, ttl: deps.actors.options.store.ttl, clock: deps.clock, signer: deps.signer };
}
