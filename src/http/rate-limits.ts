/**
 * Rate limits (docs/operations/rate-limits.md), counted with rate-limiter-flexible: each limit is
 * `points` events per `window` for one key (a client of an instance, an IP address, a login
 * name, an API caller). Past it the caller gets `resource_exhausted` — 429 with Retry-After on
 * every transport, the OAuth error shape on the OAuth endpoints, a page in the login UI.
 *
 * Every instance may set its own values through PlatformRateLimitSettings; a limit it did not
 * set is the node default (TESSERA_RATE_LIMIT_*). Each instance's limiter set is built once and
 * kept in a Map (one lookup per request); the settings write on this node and the change feed
 * for other nodes' writes (src/cluster/cluster-sync.ts) drop it, and the next request reads the
 * instance's settings once again. Instances without values of their own share the node's set.
 *
 * Failed client authentications are counted apart: only failures consume, and a client past
 * the limit is refused for the rest of the window, right or wrong secret, with a synchronous
 * check so the token endpoint pays one Map lookup while nothing is blocked.
 *
 * Where the counts live is the counter factory's choice: in memory (one node), or shared
 * through PostgreSQL by every node of a cluster (src/http/rate-limits-postgres.ts).
 */
import { RateLimiterMemory, RateLimiterRes } from './rate-limiter-memory.js';
import { AppError, resourceExhausted, type Logger } from '../../actors/index.js';
import { formatRate, parseRate, type Rate } from '../config/duration.js';
import type { Config } from '../config/schema.js';

/** Every limit an instance can set, by its settings field name. */
export const LIMIT_SETTINGS = ['client', 'clientAuthFailures', 'loginPagesIp', 'passwordIp', 'passwordLoginName', 'apiCaller'] as const;
export type LimitSetting = (typeof LIMIT_SETTINGS)[number];
/** The limits counted per request (failed client authentications are counted by `clientAuthFailed`). */
export type LimitName = Exclude<LimitSetting, 'clientAuthFailures'>;

/** A limit's value: a rate, or off. */
export type LimitValue = Rate | 'off';

/**
 * Counts events of one limit: resolves with the RateLimiterRes while under the limit, rejects
 * with a RateLimiterRes past it (rate-limiter-flexible's contract), with an Error when the
 * count could not be kept.
 */
export interface LimitCounter {
  consume(key: string): Promise<RateLimiterRes>;
}

/**
 * Makes the counter of one limit. `scope` names whose values it counts under (`node` for the
 * node defaults, else the instance id), so counters of different scopes never share counts.
 */
export type CounterFactory = (limit: LimitSetting, rate: Rate, scope: string) => LimitCounter;

export interface RateLimits {
  /** Counts one event for `key` under the instance's limit; throws `resource_exhausted` (429, Retry-After) past it. */
  consume(instanceId: string, name: LimitName, key: string): Promise<void>;
  /** Throws `resource_exhausted` while `key` (instance + client) is refused after too many failed client authentications. */
  assertClientNotBlocked(key: string): void;
  /**
   * Counts a failed client authentication of `key` (instance + client); past the limit the key
   * is refused for the rest of the window. Resolves once counted (never rejects), so the failure
   * reply leaves after the count: with shared counts the next request on any node sees it.
   */
  clientAuthFailed(instanceId: string, key: string): Promise<void>;
  /** Drops what is cached of the instance's limits (its settings changed); the next request reads them again. */
  invalidate(instanceId: string): void;
}

/** The error every limit answers with. */
export function rateLimited(msBeforeNext: number): AppError {
  return resourceExhausted('rate_limit.exceeded', 'too many requests; try again later', { retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1_000)) });
}

/** A count that passed (one settled promise, shared). */
const COUNTED: Promise<void> = Promise.resolve();
const ignoreCount = (): void => undefined;

/** Limits that never refuse (nodes with TESSERA_RATE_LIMITS=false, unit tests of handlers). */
export const NO_RATE_LIMITS: RateLimits = {
  consume: () => Promise.resolve(),
  assertClientNotBlocked: () => undefined,
  clientAuthFailed: () => Promise.resolve(),
  invalidate: () => undefined,
};

export type RateLimitConfig = Pick<Config, 'rateLimits' | 'rateLimitClient' | 'rateLimitClientAuthFailures' | 'rateLimitLoginPagesIp' | 'rateLimitPasswordIp' | 'rateLimitPasswordLoginName' | 'rateLimitApiCaller'>;

/** The node defaults by limit name (the TESSERA_RATE_LIMIT_* keys). */
export function nodeLimitDefaults(config: RateLimitConfig): Readonly<Record<LimitSetting, LimitValue>> {
  return {
    client: config.rateLimitClient,
    clientAuthFailures: config.rateLimitClientAuthFailures,
    loginPagesIp: config.rateLimitLoginPagesIp,
    passwordIp: config.rateLimitPasswordIp,
    passwordLoginName: config.rateLimitPasswordLoginName,
    apiCaller: config.rateLimitApiCaller,
  };
}

/** A limit as text, the way it is configured: `off`, or `N/duration` with the largest whole unit (`10/1m`). */
export const formatLimit: (value: LimitValue) => string = formatRate;

/** Client blocks (after failed authentications) that every node of a cluster applies. */
export interface SharedBlocks {
  /** Tells the other nodes that `key` (instance + client) is refused until `until` (epoch ms). */
  publish(key: string, until: number): Promise<void>;
  /** Called with the blocks other nodes published (and this node's own), as they are learned. */
  subscribe(onBlocked: (key: string, until: number) => void): void;
}

export interface RateLimitOptions {
  /** The instance's own values by limit name (`N/duration` or `off`); undefined or {} when it set none. */
  readonly loadInstanceLimits?: (instanceId: string) => Promise<Readonly<Record<string, string>> | undefined>;
  /** Where counts live; default: this node's memory. */
  readonly counters?: CounterFactory;
  /** Shares client blocks between nodes (PostgreSQL); without it a block holds on this node only. */
  readonly sharedBlocks?: SharedBlocks;
  /** Called once per refused request (metrics). */
  readonly onRejected?: (limit: LimitSetting, instanceId: string) => void;
  readonly logger?: Pick<Logger, 'warn'>;
  readonly now?: () => number;
}

interface LimiterSet {
  readonly counters: Readonly<Record<LimitName, LimitCounter | undefined>>;
  readonly failures: LimitCounter | undefined;
}

/** Counts in this node's memory. */
export const memoryCounters: CounterFactory = (_limit, rate) => {
  const duration = rate.windowMs / 1_000;
  return new RateLimiterMemory({ points: rate.points, duration, blockDuration: duration });
};

export function createRateLimits(config: RateLimitConfig, options: RateLimitOptions = {}): RateLimits {
  if (!config.rateLimits) return NO_RATE_LIMITS;
  const now = options.now ?? Date.now;
  const counters = options.counters ?? memoryCounters;
  const onRejected = options.onRejected ?? (() => undefined);
  const defaults = nodeLimitDefaults(config);
  const nodeSet = buildSet('node', {});
  /** Instance id → its limiter set (the node's own when the instance set nothing). */
  const sets = new Map<string, LimiterSet>();
  /** Bumped by every invalidation, so a read that started before a change never caches the old values. */
  const generations = new Map<string, number>();
  /** Keys refused after too many failures → the epoch ms they are refused until. */
  const blocked = new Map<string, number>();
  options.sharedBlocks?.subscribe((key, until) => {
    if (until > now() && (blocked.get(key) ?? 0) < until) blocked.set(key, until);
  });
  const block = async (key: string, until: number): Promise<void> => {
    blocked.set(key, until);
    await options.sharedBlocks?.publish(key, until);
  };

  function buildSet(scope: string, own: Partial<Record<LimitSetting, LimitValue>>): LimiterSet {
    const counterOf = (limit: LimitSetting): LimitCounter | undefined => {
      const value = own[limit] ?? defaults[limit];
      if (value === 'off') return undefined;
      const fallback = defaults[limit];
      // The node default's counter is shared, so an instance's own values start fresh counts only for what it changed.
      if (scope !== 'node' && fallback !== 'off' && fallback.points === value.points && fallback.windowMs === value.windowMs) return limit === 'clientAuthFailures' ? nodeSet.failures : nodeSet.counters[limit];
      return counters(limit, value, scope);
    };
    return {
      counters: {
        client: counterOf('client'),
        loginPagesIp: counterOf('loginPagesIp'),
        passwordIp: counterOf('passwordIp'),
        passwordLoginName: counterOf('passwordLoginName'),
        apiCaller: counterOf('apiCaller'),
      },
      failures: counterOf('clientAuthFailures'),
    };
  }

  async function loadSet(instanceId: string): Promise<LimiterSet> {
    if (options.loadInstanceLimits === undefined || instanceId === '') return nodeSet;
    const generation = generations.get(instanceId) ?? 0;
    let own: Readonly<Record<string, string>> | undefined;
    try {
      own = await options.loadInstanceLimits(instanceId);
    } catch (err) {
      // The store is unreachable: the node defaults apply for now; the next request tries again.
      options.logger?.warn({ err, instanceId }, 'rate limits: the instance settings could not be read; using the node defaults');
      return nodeSet;
    }
    const values: Partial<Record<LimitSetting, LimitValue>> = {};
    for (const limit of LIMIT_SETTINGS) {
      const text = own?.[limit];
      const value = text === undefined ? undefined : parseRate(text);
      if (value !== undefined) values[limit] = value;
    }
    const set = Object.keys(values).length === 0 ? nodeSet : buildSet(instanceId, values);
    if ((generations.get(instanceId) ?? 0) === generation) sets.set(instanceId, set);
    return set;
  }

  function consumeIn(set: LimiterSet, instanceId: string, name: LimitName, key: string): Promise<void> {
    const counter = set.counters[name];
    if (counter === undefined) return COUNTED;
    let counting: Promise<RateLimiterRes>;
    try {
      counting = counter.consume(key);
    } catch (error) {
      return Promise.reject(error);
    }
    return counting.then(ignoreCount, (rejection: unknown) => {
      if (rejection instanceof RateLimiterRes) {
        onRejected(name, instanceId);
        throw rateLimited(rejection.msBeforeNext);
      }
      throw rejection;
    });
  }

  return {
    // One `then` on the counter's promise, no async frame: every token request counts here.
    consume(instanceId, name, key) {
      const set = sets.get(instanceId);
      if (set === undefined) return loadSet(instanceId).then((loaded) => consumeIn(loaded, instanceId, name, key));
      return consumeIn(set, instanceId, name, key);
    },
    assertClientNotBlocked(key) {
      if (blocked.size === 0) return;
      const until = blocked.get(key);
      if (until === undefined) return;
      const left = until - now();
      if (left > 0) {
        onRejected('clientAuthFailures', key.slice(0, key.indexOf('\u0000')));
        throw rateLimited(left);
      }
      blocked.delete(key);
    },
    clientAuthFailed(instanceId, key) {
      if (blocked.size >= 10_000) {
        const at = now();
        for (const [k, until] of blocked) if (until <= at) blocked.delete(k);
      }
      const counting = async (): Promise<void> => {
        const set = sets.get(instanceId) ?? (await loadSet(instanceId));
        if (set.failures === undefined) return;
        // The failure that uses the last point blocks the key: N failures, then refusals.
        let res: RateLimiterRes;
        try {
          res = await set.failures.consume(key);
          if (res.remainingPoints > 0) return;
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          res = rejection;
        }
        await block(key, now() + res.msBeforeNext);
      };
      return counting().catch((err: unknown) => options.logger?.warn({ err, instanceId }, 'rate limits: a failed client authentication could not be counted'));
    },
    invalidate(instanceId) {
      generations.set(instanceId, (generations.get(instanceId) ?? 0) + 1);
      sets.delete(instanceId);
    },
  };
}
