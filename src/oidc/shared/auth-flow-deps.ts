/** What the authorization endpoint and the login UI need from the composition root. */
import type { ActorSystem, Clock, TtlStore } from '../../../actors/index.js';
import type { TenantDirectory } from '../../query/tenant.js';
import type { Config } from '../../config/schema.js';
import type { Signer } from '../../crypto/signer.js';
import type { ClaimHooks } from './claim-hooks.js';
import type { TokenLifetimes } from './token-issuer.js';
import type { TokenStore } from './token-store.js';

import type { RateLimits } from '../../http/rate-limits.js';

export interface AuthFlowDeps {
  readonly config: Config;
  readonly tenants: TenantDirectory;
  readonly actors: ActorSystem;
  readonly ttl: TtlStore;
  readonly clock: Clock;
  readonly signer: Signer;
  /** The token model (implicit responses issue tokens at the authorization endpoint). */
  readonly tokens: TokenStore;
  readonly lifetimes: TokenLifetimes;
  /** preaccesstoken / preuserinfo function executions (none when absent). */
  readonly claimHooks?: ClaimHooks;
  /** Requests per IP to these pages and password checks per IP and login name. */
  readonly limits: RateLimits;
}

/** The authorization flow's view of the OAuth endpoints' dependencies. */
export function toAuthFlowDeps(deps: Omit<AuthFlowDeps, 'ttl'>): AuthFlowDeps {
  const { config, tenants, actors, clock, signer, tokens, lifetimes, claimHooks, limits } = deps;
  return { config, tenants, actors, ttl: actors.ttl, clock, signer, tokens, lifetimes, limits, ...(claimHooks === undefined ? {} : { claimHooks }) };
}
