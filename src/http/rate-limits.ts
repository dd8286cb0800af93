/**
 * Rate limits of one node (docs/operations/rate-limits.md), counted in memory with
 * rate-limiter-flexible: each limit is `points` events per `window` for one key (a client of an
 * instance, an IP address, a login name, an API caller). Past it the caller gets
 * `resource_exhausted` — 429 with Retry-After on every transport, the OAuth error shape on the
 * OAuth endpoints, a page in the login UI.
 *
 * Failed client authentications are counted apart: only failures consume, and a client past
 * the limit is refused for the rest of the window, right or wrong secret, with a synchronous
 * check so the token endpoint pays one Map lookup while nothing is blocked.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, resourceExhausted } from '../../actors/index.js';
import type { Rate } from '../config/duration.js';
import type { Config } from '../config/schema.js';

/** The limits a node applies; each is configured by its own TESSERA_RATE_LIMIT_* key. */
export type LimitName = 'client' | 'loginPagesIp' | 'passwordIp' | 'passwordLoginName' | 'apiCaller';

export interface RateLimits {
  /** Counts one event for `key`; throws `resource_exhausted` (429, Retry-After) past the limit. */
  consume(name: LimitName, key: string): Promise<void>;
  /** Throws `resource_exhausted` while `key` is refused after too many failed client authentications. */
  assertClientNotBlocked(key: string): void;
  /** Counts a failed client authentication of `key`; past the limit the key is refused for the rest of the window. */
  clientAuthFailed(key: string): void;
}

/** The error every limit answers with. */
export function rateLimited(msBeforeNext: number): AppError {
  return resourceExhausted('rate_limit.exceeded', 'too many requests; try again later', { retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1_000)) });
}

/** Limits that never refuse (nodes with TESSERA_RATE_LIMITS=false, unit tests of handlers). */
export const NO_RATE_LIMITS: RateLimits = {
  consume: () => Promise.resolve(),
  assertClientNotBlocked: () => undefined,
  clientAuthFailed: () => undefined,
};

export function createRateLimits(config: Pick<Config, 'rateLimits' | 'rateLimitClient' | 'rateLimitClientAuthFailures' | 'rateLimitLoginPagesIp' | 'rateLimitPasswordIp' | 'rateLimitPasswordLoginName' | 'rateLimitApiCaller'>, now: () => number = Date.now): RateLimits {
  if (!config.rateLimits) return NO_RATE_LIMITS;
  const limiters: Record<LimitName, RateLimiterMemory | undefined> = {
    client: limiterOf(config.rateLimitClient),
    loginPagesIp: limiterOf(config.rateLimitLoginPagesIp),
    passwordIp: limiterOf(config.rateLimitPasswordIp),
    passwordLoginName: limiterOf(config.rateLimitPasswordLoginName),
    apiCaller: limiterOf(config.rateLimitApiCaller),
  };
  const failures = limiterOf(config.rateLimitClientAuthFailures);
  /** Keys refused after too many failures → the epoch ms they are refused until. */
  const blocked = new Map<string, number>();

  return {
    async consume(name, key) {
      const limiter = limiters[name];
      if (limiter === undefined) return;
      try {
        await limiter.consume(key);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) throw rateLimited(rejection.msBeforeNext);
        throw rejection;
      }
    },
    assertClientNotBlocked(key) {
      if (blocked.size === 0) return;
      const until = blocked.get(key);
      if (until === undefined) return;
      const left = until - now();
      if (left > 0) throw rateLimited(left);
      blocked.delete(key);
    },
    clientAuthFailed(key) {
      if (failures === undefined) return;
      if (blocked.size >= 10_000) {
        const at = now();
        for (const [k, until] of blocked) if (until <= at) blocked.delete(k);
      }
      // The failure that uses the last point blocks the key: N failures, then refusals.
      failures.consume(key).then(
        (res) => {
          if (res.remainingPoints === 0) blocked.set(key, now() + res.msBeforeNext);
        },
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) blocked.set(key, now() + rejection.msBeforeNext);
        },
      );
    },
  };
}

function limiterOf(rate: Rate | 'off'): RateLimiterMemory | undefined {
  if (rate === 'off') return undefined;
  const duration = rate.windowMs / 1_000;
  return new RateLimiterMemory({ points: rate.points, duration, blockDuration: duration });
}
