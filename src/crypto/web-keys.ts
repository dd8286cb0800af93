/**
 * The edge of web-key management (reference facts §5.7, docs/oidc/keys.md): generates key pairs
 * with node:crypto and asks the instance actor to record them. Every function here is safe to
 * run in several processes at once: the commands are idempotent or conditional, and a lost
 * race changes nothing.
 */
import {
  activeWebKey,
  type ActorSystem,
  type AggregateRecord,
  initializeWebKeys,
  instanceKind,
  nextWebKey,
  notFound,
  rotateWebKeys,
  type SigningAlgorithm,
  SYSTEM_TENANT,
  type WebKeyRing,
  type WebKeysChange,
  webKeysKind,
} from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import type { WebKeySnapshot } from './key-ring.js';
import type { WebKeySource } from './signer.js';
import { generateWebKey } from './web-key-generator.js';

/** How keys are made and how long they live, from the configuration. */
export interface WebKeyPolicy {
  /** Algorithm of newly generated keys. */
  readonly algorithm: SigningAlgorithm;
  /** Scheduled rotation after the active key signed this long (0: never by schedule). */
  readonly rotationIntervalMs: number;
  /** How long a retired key stays published. */
  readonly retireAfterMs: number;
}

export function webKeyPolicy(config: Config): WebKeyPolicy {
  return { algorithm: config.signingAlgorithm, rotationIntervalMs: config.keyRotationInterval, retireAfterMs: config.keyRetireAfter };
}

/**
 * Gives an instance its two first keys (active + next) unless it has them; idempotent, call it
 * whenever an instance is created. Undefined when nothing had to change. Throws
 * `instance.not_found` for an id that is not in the instance directory.
 */
export async function ensureWebKeys(
  actors: ActorSystem,
  instanceId: string,
  options: { readonly algorithm: SigningAlgorithm },
): Promise<WebKeysChange | undefined> {
  const ring = (await actors.readRecord(instanceId, webKeysKind, instanceId))?.state;
  if (activeWebKey(ring) !== undefined && nextWebKey(ring) !== undefined) return undefined;
  if ((await actors.readRecord(SYSTEM_TENANT, instanceKind, instanceId)) === undefined) {
    throw notFound('instance.not_found', 'the instance does not exist');
  }
  const [first, second] = await Promise.all([generateWebKey(options.algorithm), generateWebKey(options.algorithm)]);
  return actors.ask({ kind: 'instance', instanceId }, initializeWebKeys, { first, second }, { creator: '' });
}

export interface RotateOptions {
  /** Algorithm of the new `next` key (default: the policy's). */
  readonly algorithm?: SigningAlgorithm | undefined;
  /** Who asked ('' for the scheduler and the CLI). */
  readonly creator?: string;
  /** Rotate only while this key is active (the scheduler's guard against double rotation). */
  readonly ifActiveKid?: string;
}

/** Rotates an instance's keys (creating its first keys when it has none). */
export async function rotateInstanceWebKeys(
  actors: ActorSystem,
  instanceId: string,
  policy: WebKeyPolicy,
  options: RotateOptions = {},
): Promise<WebKeysChange> {
  await ensureWebKeys(actors, instanceId, policy);
  const next = await generateWebKey(options.algorithm ?? policy.algorithm);
  return actors.ask(
    { kind: 'instance', instanceId },
    rotateWebKeys,
    { next, retireAfterMs: policy.retireAfterMs, ...(options.ifActiveKid === undefined ? {} : { ifActiveKid: options.ifActiveKid }) },
    { creator: options.creator ?? '' },
  );
}

/**
 * Web keys of a running node: the signer's key source, plus rotation. The signer hears of a
 * rotation through the instance state's one invalidation (the rotation's append), not from here.
 */
export interface WebKeyService extends WebKeySource {
  readonly policy: WebKeyPolicy;
  /** The instance's key ring, its first keys created on demand. */
  ring(instanceId: string): Promise<AggregateRecord<WebKeyRing>>;
  rotate(instanceId: string, options?: RotateOptions): Promise<WebKeysChange>;
}

export function createWebKeyService(deps: { readonly actors: ActorSystem; readonly policy: WebKeyPolicy }): WebKeyService {
  const { actors, policy } = deps;
  const ensuring = new Map<string, Promise<unknown>>();

  /** One key generation per instance at a time on this node, however many requests wait for it. */
  const ensure = async (instanceId: string): Promise<void> => {
    let pending = ensuring.get(instanceId);
    if (pending === undefined) {
      pending = ensureWebKeys(actors, instanceId, policy).finally(() => ensuring.delete(instanceId));
      ensuring.set(instanceId, pending);
    }
    await pending;
  };
  const ring = async (instanceId: string): Promise<AggregateRecord<WebKeyRing>> => {
    const record = await actors.readRecord(instanceId, webKeysKind, instanceId);
    if (record !== undefined && activeWebKey(record.state) !== undefined) return record;
    await ensure(instanceId);
    const created = await actors.readRecord(instanceId, webKeysKind, instanceId);
    if (created === undefined) throw notFound('instance.not_found', 'the instance does not exist');
    return created;
  };

  return {
    policy,
    ring,
    async snapshot(instanceId): Promise<WebKeySnapshot> {
      const record = await ring(instanceId);
      return { version: record.meta.version, keys: record.state.keys };
    },
    rotate: (instanceId, options = {}) => rotateInstanceWebKeys(actors, instanceId, policy, options),
  };
}
