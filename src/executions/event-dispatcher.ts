/**
 * Event conditions (design §8): one worker per instance with event executions reads the
 * instance's event log after a persisted cursor, calls the matching targets in event order,
 * retries failed calls with exponential backoff (bounded), and persists the cursor after each
 * delivered event. Delivery is at least once: after a crash or stop the last event may be sent
 * again. An event counts as delivered when every non-async target answered or gave up.
 * Nodes sharing a store deliver each instance's events from one node at a time (delivery-lease.ts).
 */
import type { Clock, Logger, StoreAdapter, StoredEvent } from '../../actors/index.js';
import { DeliveryLease } from './delivery-lease.js';
import { eventPayload } from './event-payload.js';
import type { InstancePlan, PlanCache } from './plans.js';
import { eventTargets } from './resolve.js';
import { callTarget, type ResolvedTarget, type TargetCallOptions } from './target-call.js';
import { PUBLIC_ONLY, type OutboundPolicy } from '../http/outbound-policy.js';

export interface EventDispatcherOptions {
  readonly store: StoreAdapter;
  readonly plans: PlanCache;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Which addresses targets may be called at (default: public only). */
  readonly network?: OutboundPolicy;
  /** Idle wait between reads of a caught-up log. */
  readonly pollMs?: number;
  readonly batchSize?: number;
  /** Attempts per target call (first call included) and the backoff between them. */
  readonly attempts?: number;
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Lifetime of an instance's delivery lease between nodes (renewed every third of it). */
  readonly leaseMs?: number;
}

interface Worker {
  lag: number;
  readonly done: Promise<void>;
}

const cursorKey = (instanceId: string) => `executions.event_cursor:${instanceId}`;

export class EventDispatcher {
  private readonly workers = new Map<string, Worker>();
  private readonly stopping = new AbortController();
  private readonly o: Required<EventDispatcherOptions>;
  private readonly lease: DeliveryLease;

  constructor(options: EventDispatcherOptions) {
    this.o = { pollMs: 200, batchSize: 100, attempts: 6, backoffMs: 500, maxBackoffMs: 30_000, leaseMs: 15_000, network: PUBLIC_ONLY, ...options };
    this.lease = new DeliveryLease({ ttl: options.store.ttl, clock: options.clock, logger: options.logger, leaseMs: this.o.leaseMs });
    options.plans.onLoad((plan) => this.ensureWorker(plan));
  }

  /** Events not yet delivered, summed over the instances with event executions. */
  lag(): number {
    let total = 0;
    for (const worker of this.workers.values()) total += worker.lag;
    return total;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.workers.values()].map((w) => w.done));
    await this.lease.releaseAll();
  }

  private ensureWorker(plan: InstancePlan): void {
    if (!plan.hasEvents || this.workers.has(plan.instanceId) || this.stopping.signal.aborted) return;
    const worker: { lag: number; done: Promise<void> } = { lag: 0, done: Promise.resolve() };
    worker.done = this.work(plan.instanceId, worker)
      .catch((err: unknown) => this.o.logger.error({ err, instanceId: plan.instanceId }, 'event dispatcher failed; restarting on the next plan load'))
      .finally(() => {
        this.workers.delete(plan.instanceId);
        void this.lease.release(plan.instanceId);
      });
    this.workers.set(plan.instanceId, worker);
  }

  private async work(instanceId: string, worker: { lag: number }): Promise<void> {
    let cursor = 0;
    let holding = false;
    while (!this.stopping.signal.aborted) {
      const plan = await this.o.plans.get(instanceId);
      if (!plan.hasEvents) return;
      if (!(await this.lease.acquire(instanceId))) {
        // Another node delivers this instance; wait to take over if it stops renewing.
        holding = false;
        worker.lag = 0;
        await this.sleep(this.o.leaseMs / 3);
        continue;
      }
      // Newly holding: the previous holder may have moved the persisted cursor on.
      if (!holding) cursor = await this.startCursor(instanceId);
      holding = true;
      const events = await this.o.store.readEvents(instanceId, cursor, this.o.batchSize);
      worker.lag = Math.max(0, (await this.o.store.projectionState(instanceId)).position - cursor);
      if (events.length === 0) {
        await this.sleep(this.o.pollMs);
        continue;
      }
      for (const event of events) {
        if (!this.lease.isHeld(instanceId)) break; // lost the lease: the new holder goes on from the cursor
        const targets = eventTargets(await this.o.plans.get(instanceId), event.type, event.position);
        if (targets.length > 0 && !(await this.deliver(event, targets))) return; // stopping: redeliver later
        cursor = event.position;
        worker.lag = Math.max(0, worker.lag - 1);
        if (targets.length > 0) await this.o.store.putMeta(cursorKey(instanceId), cursor);
      }
      if (this.lease.isHeld(instanceId)) await this.o.store.putMeta(cursorKey(instanceId), cursor);
    }
  }

  /** The persisted cursor, never before the oldest event execution (older events match nothing). */
  private async startCursor(instanceId: string): Promise<number> {
    const stored = await this.o.store.getMeta(cursorKey(instanceId));
    const plan = await this.o.plans.get(instanceId);
    const created = [...plan.entries.values()].filter((e) => e.condition.type === 'event').map((e) => e.createdPosition);
    const oldest = created.length === 0 ? 0 : Math.min(...created);
    return Math.max(typeof stored === 'number' ? stored : 0, oldest);
  }

  /** Calls every target of one event; false when the node stops before it is done. */
  private async deliver(event: StoredEvent, targets: readonly ResolvedTarget[]): Promise<boolean> {
    const body = eventPayload(event);
    for (const target of targets) {
      if (target.executionType === 'async') {
        callTarget(target, body, this.callOptions()).catch((err: unknown) => this.logFailure(err, event, target, 1));
        continue;
      }
      const outcome = await this.callWithRetries(target, body, event);
      if (outcome === 'stopped') return false;
      if (outcome === 'failed' && target.executionType === 'interrupt') break; // skip the remaining targets
    }
    return true;
  }

  private async callWithRetries(target: ResolvedTarget, body: string, event: StoredEvent): Promise<'ok' | 'failed' | 'stopped'> {
    for (let attempt = 1; attempt <= this.o.attempts; attempt += 1) {
      try {
        await callTarget(target, body, this.callOptions());
        return 'ok';
      } catch (err) {
        if (this.stopping.signal.aborted) return 'stopped';
        this.logFailure(err, event, target, attempt);
        if (attempt === this.o.attempts) break;
        await this.sleep(Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** (attempt - 1)));
        if (this.stopping.signal.aborted) return 'stopped';
      }
    }
    this.o.logger.error({ instanceId: event.instanceId, position: event.position, eventType: event.type, targetId: target.id }, 'event execution gave up after retries');
    return 'failed';
  }

  private callOptions(): TargetCallOptions {
    return { now: this.o.clock.now(), signal: this.stopping.signal, network: this.o.network };
  }

  private logFailure(err: unknown, event: StoredEvent, target: ResolvedTarget, attempt: number): void {
    this.o.logger.warn({ err, instanceId: event.instanceId, position: event.position, targetId: target.id, attempt }, 'event execution target failed');
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.stopping.signal;
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
