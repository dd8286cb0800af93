/**
 * The change feed between the worker threads of one node (docs/architecture.md, "Workers").
 * Every worker opens the same store; what one worker commits, the others must see before a
 * client that got the write's answer can ask them:
 *
 * - After a successful append the writer posts the change (instance, positions, streams at
 *   their versions) on the node's BroadcastChannel, then bumps the node's write generation (one
 *   Int32 in a SharedArrayBuffer). Every other mutation (TTL rows: codes, tokens; meta) bumps it
 *   too. Both happen before the store call resolves, so before any reply leaves.
 * - Before handling a request a worker compares the generation with the one it last caught up
 *   to (one Atomics.load). On a difference it drains the channel synchronously
 *   (receiveMessageOnPort), dispatches each change through the node's invalidations (the same
 *   registry the PostgreSQL change feed uses) and renews the store's read snapshot (LMDB keeps
 *   a read transaction until the next timer turn). Messages are posted before the bump, so
 *   everything written before the generation it read is applied.
 * - Between requests the channel's message event applies changes as they come, so the drain
 *   usually finds nothing.
 * - PostgreSQL: each worker keeps its requests' reads for the next request while the instance's
 *   position has not moved (postgres-read-cache.ts). A batch one worker commits is also posted
 *   (before the change and the bump) with the rows and claims it wrote, so the other workers'
 *   caches move past it, dropping just those, as the writer's own does; without it every write
 *   of a sibling made the next request re-read all it needed (the instance's settings, the
 *   organization, …).
 */
import { BroadcastChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { ChangedStream, CommittedBatch, Logger, StoreAdapter, StoreChange, StoredEvent } from '../../actors/index.js';
import type { SharedBlocks } from '../http/rate-limits.js';

/** What the main thread hands every worker (workerData). */
export interface WorkerLink {
  readonly index: number;
  readonly count: number;
  /** The node's BroadcastChannel name (unique per node process). */
  readonly channel: string;
  /** One Int32: the node's write generation. */
  readonly generation: SharedArrayBuffer;
}

type FeedMessage =
  | { readonly kind: 'change'; readonly change: StoreChange }
  | { readonly kind: 'committed'; readonly batch: CommittedBatch }
  | { readonly kind: 'wake'; readonly instanceId: string }
  | { readonly kind: 'block'; readonly key: string; readonly until: number };

export interface WorkerFeed {
  /** The store with appends published to the other workers, and their changes in its change feed (beside the store's own, PostgreSQL). */
  wrap(store: StoreAdapter): StoreAdapter;
  /** Applies every change the other workers committed so far; call before handling a request. */
  catchUp(): void;
  /** Asks the worker running the outbox to deliver the instance's queued messages now. */
  wakeOutbox(instanceId: string): void;
  /** Called (on the outbox's worker) when another worker queued a message. */
  onWake(listener: (instanceId: string) => void): void;
  /** Client blocks (after failed authentications) every worker applies: posted on the channel. */
  readonly blocks: SharedBlocks;
  close(): void;
}

export function joinWorkerFeed(link: WorkerLink, logger: Logger): WorkerFeed {
  const generation = new Int32Array(link.generation);
  const channel = new BroadcastChannel(link.channel);
  const listeners = new Set<(change: StoreChange) => void>();
  let wakeListener: ((instanceId: string) => void) | undefined;
  let blockListener: ((key: string, until: number) => void) | undefined;
  let seen = Atomics.load(generation, 0);
  let renewReads: (() => void) | undefined;
  let applyBatch: ((batch: CommittedBatch) => void) | undefined;

  const apply = (message: FeedMessage): void => {
    if (message.kind === 'wake') return wakeListener?.(message.instanceId);
    if (message.kind === 'block') return blockListener?.(message.key, message.until);
    if (message.kind === 'committed') return applyBatch?.(message.batch);
    for (const listener of listeners) {
      try {
        listener(message.change);
      } catch (err) {
        logger.warn({ err, instanceId: message.change.instanceId }, 'worker change feed: a listener failed');
      }
    }
  };
  channel.onmessage = (event) => apply((event as { data: FeedMessage }).data);
  (channel as unknown as { unref(): void }).unref();

  const post = (message: FeedMessage): void => {
    channel.postMessage(message);
  };
  const bump = (): void => {
    Atomics.add(generation, 0, 1);
  };

  return {
    wrap(store) {
      renewReads = store.renewReads?.bind(store);
      const batches = store.committedBatches;
      if (batches !== undefined) {
        applyBatch = (batch) => batches.apply(batch);
        // Called inside the store's append, after its COMMIT: it must not throw.
        batches.listen((batch) => {
          try {
            post({ kind: 'committed', batch });
          } catch (err) {
            logger.warn({ err, instanceId: batch.instanceId }, 'worker change feed: a committed batch was not posted (the other workers re-read the instance)');
          }
        });
      }
      const ttl = store.ttl;
      const own = store.changes;
      return {
        ...store,
        async append(request) {
          const result = await store.append(request);
          if (result.ok && result.events.length > 0) post({ kind: 'change', change: changeOf(request.instanceId, result.events) });
          bump();
          return result;
        },
        async putMeta(key, value) {
          await store.putMeta(key, value);
          bump();
        },
        ttl: {
          ...ttl,
          put: async (...args) => {
            await ttl.put(...args);
            bump();
          },
          take: async (...args) => {
            const taken = await ttl.take(...args);
            bump();
            return taken;
          },
          delete: async (...args) => {
            await ttl.delete(...args);
            bump();
          },
          ...(ttl.claim === undefined
            ? {}
            : {
                claim: async (...args: Parameters<NonNullable<typeof ttl.claim>>) => {
                  const claimed = await (ttl.claim as NonNullable<typeof ttl.claim>)(...args);
                  bump();
                  return claimed;
                },
              }),
        },
        changes: {
          async subscribe(listener) {
            listeners.add(listener);
            const unsubscribeOwn = own === undefined ? undefined : await own.subscribe(listener);
            return () => {
              listeners.delete(listener);
              unsubscribeOwn?.();
            };
          },
        },
      };
    },
    catchUp() {
      const current = Atomics.load(generation, 0);
      if (current === seen) return;
      seen = current;
      renewReads?.();
      for (let received = receiveMessageOnPort(channel as never); received !== undefined; received = receiveMessageOnPort(channel as never)) {
        apply((received as { message: FeedMessage }).message);
      }
    },
    wakeOutbox(instanceId) {
      post({ kind: 'wake', instanceId });
    },
    onWake(listener) {
      wakeListener = listener;
    },
    blocks: {
      async publish(key, until) {
        post({ kind: 'block', key, until });
        bump(); // the next request on another worker applies it before it is handled
      },
      subscribe(onBlocked) {
        blockListener = onBlocked;
      },
    },
    close() {
      channel.close();
    },
  };
}

/**
 * The change an append made: its positions and the streams it moved, at their new versions.
 * No `committedAt`: the change-feed lag metric measures other nodes' writes (PostgreSQL), not the
 * microseconds between this node's threads.
 */
function changeOf(instanceId: string, events: readonly StoredEvent[]): StoreChange {
  const streams = new Map<string, ChangedStream>();
  for (const event of events) streams.set(`${event.aggregateType}\u0000${event.aggregateId}`, { aggregateType: event.aggregateType, aggregateId: event.aggregateId, version: event.version });
  return { instanceId, fromPosition: (events[0] as StoredEvent).position, toPosition: (events[events.length - 1] as StoredEvent).position, streams: [...streams.values()] };
}
