/**
 * What the OAuth endpoints share: their dependencies (built once per node) and the first steps
 * of every request — the instance of the Host header (unknown → 404, blocked → 429), the issuer,
 * the clock reading and the form parameters.
 */
import type { ActorSystem, Clock } from '../../../actors/index.js';
import type { InstanceInfo, TenantDirectory } from '../../query/tenant.js';
import type { Config } from '../../config/schema.js';
import type { Signer } from '../../crypto/signer.js';
import type { HttpRequest } from '../../http/types.js';
import type { AccessTokenContext } from './access-token.js';
import { type ClaimHooks, createClaimHooks, type FunctionRunner } from './claim-hooks.js';
import type { ClientAuthContext } from './client-auth.js';
import { NO_RATE_LIMITS, type RateLimits } from '../../http/rate-limits.js';
import { type ClientCache, createClientCache } from './client-cache.js';
import { knownUsableInstance, requireInstance } from './endpoint.js';
import { type FormParams, invalidRequest, parseForm } from './form.js';
import { issuerFor } from './issuer.js';
import type { ErrorLogger } from './oauth-reply.js';
import { lifetimesOf, type TokenLifetimes } from './token-issuer.js';
import { createTokenStore, type TokenStore } from './token-store.js';

export interface OAuthBaseDeps {
  readonly config: Config;
  readonly tenants: TenantDirectory;
  readonly signer: Signer;
  readonly actors: ActorSystem;
  readonly clock: Clock;
  readonly logger?: ErrorLogger;
  /** Function executions (preaccesstoken, preuserinfo); none when absent. */
  readonly functions?: FunctionRunner;
  /** The node's rate limits (src/http/rate-limits.ts); none when absent. */
  readonly limits?: RateLimits;
}

export interface OAuthDeps extends OAuthBaseDeps {
  readonly clients: ClientCache;
  readonly tokens: TokenStore;
  readonly lifetimes: TokenLifetimes;
  readonly claimHooks: ClaimHooks;
  readonly limits: RateLimits;
}

export function createOAuthDeps(base: OAuthBaseDeps): OAuthDeps {
  return {
    ...base,
    clients: createClientCache({ actors: base.actors }),
    tokens: createTokenStore(base.actors.ttl),
    lifetimes: lifetimesOf(base.config),
    claimHooks: createClaimHooks(base.actors, base.functions),
    limits: base.limits ?? NO_RATE_LIMITS,
  };
}

export interface OAuthRequest {
  readonly instance: InstanceInfo;
  readonly issuer: string;
  /** Epoch ms, read once per request. */
  readonly now: number;
  readonly params: FormParams;
  readonly http: HttpRequest;
}

/**
 * The request's first steps. A host this node already knows (and that is usable) is taken
 * without a promise or an await (the token hot path); otherwise `requireInstance` reads the store
 * and answers 404 / 429 as before.
 */
export function openOAuthRequest(deps: OAuthDeps, req: HttpRequest): OAuthRequest | Promise<OAuthRequest> {
  const known = knownUsableInstance(deps.tenants, req);
  if (known !== undefined) return openWith(deps, req, known);
  return requireInstance(deps.tenants, req).then((instance) => openWith(deps, req, instance));
}

function openWith(deps: OAuthDeps, req: HttpRequest, instance: InstanceInfo): OAuthRequest {
  const issuer = issuerFor(deps.config, req);
  if (issuer === undefined) throw invalidRequest('the Host header is malformed');
  return { instance, issuer, now: deps.clock.now(), params: parseForm(req), http: req };
}

export function clientAuthContext(deps: OAuthDeps, request: OAuthRequest): ClientAuthContext {
  return { clients: deps.clients, limits: deps.limits, ttl: deps.actors.ttl, instanceId: request.instance.id, issuer: request.issuer, endpointUrl: `${request.issuer}${request.http.path}`, now: request.now, notes: request.http.notes };
}

export function accessTokenContext(deps: OAuthDeps, request: Pick<OAuthRequest, 'instance' | 'issuer' | 'now'>): AccessTokenContext {
  return { signer: deps.signer, tokens: deps.tokens, instanceId: request.instance.id, issuer: request.issuer, now: request.now };
}
