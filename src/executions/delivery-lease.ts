/**
 * One event deliverer per instance across the nodes sharing a store (issue 7): a node
 * delivers an instance's events only while it holds that instance's lease, a TTL row claimed
 * atomically (`ttl.claim`) and renewed on a timer. A node that dies stops renewing, and
 * another takes over once the row expires, from the persisted cursor; a node that stops
 * releases its leases at once. A store without `claim` (LMDB: one process) needs no lease.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, Logger, TtlStore } from '../../actors/index.js';

/** The event executions' lease row (the outbox passes its own table and key). */
const TABLE = 'executions.lease';
const KEY = 'events';

export interface DeliveryLeaseOptions {
  readonly ttl: TtlStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a lease lives without renewal (renewed every third of it). */
  readonly leaseMs: number;
  /** The TTL row of the lease (default: the event executions'; the outbox has its own). */
  readonly table?: string;
  readonly key?: string;
  /** What the lease is for, in log lines (default `event delivery`). */
  readonly label?: string;
}

export class DeliveryLease {
  private readonly holder = randomUUID();
  /** Instances whose lease this node holds, with when it runs out. */
  private readonly held = new Map<string, number>();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly table: string;
  private readonly key: string;
  private readonly label: string;

  constructor(private readonly options: DeliveryLeaseOptions) {
    this.table = options.table ?? TABLE;
    this.key = options.key ?? KEY;
    this.label = options.label ?? 'event delivery';
    if (options.ttl.claim === undefined) return;
    this.timer = setInterval(() => void this.renewAll(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.timer.unref();
  }

  /** Whether this node may deliver the instance's events now (claims the lease when free). */
  async acquire(instanceId: string): Promise<boolean> {
    if (this.options.ttl.claim === undefined || this.isHeld(instanceId)) return true;
    return this.claim(instanceId);
  }

  /** Synchronous check between events: false once the lease was lost or ran out. */
  isHeld(instanceId: string): boolean {
    if (this.options.ttl.claim === undefined) return true;
    const until = this.held.get(instanceId);
    return until !== undefined && this.options.clock.now() < until;
  }

  /** Gives the lease up (the worker ended or the node stops), so another node takes over at once. */
  async release(instanceId: string): Promise<void> {
    if (!this.held.delete(instanceId)) return;
    try {
      if ((await this.options.ttl.get(instanceId, this.table, this.key)) === this.holder) await this.options.ttl.delete(instanceId, this.table, this.key);
    } catch (err) {
      this.options.logger.warn({ err, instanceId }, `${this.label} lease release failed; it expires on its own`);
    }
  }

  async releaseAll(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.held.keys()].map((id) => this.release(id)));
  }

  private async claim(instanceId: string): Promise<boolean> {
    const until = this.options.clock.now() + this.options.leaseMs;
    let won = false;
    try {
      won = (await this.options.ttl.claim?.(instanceId, this.table, this.key, this.holder, until)) === true;
    } catch (err) {
      this.options.logger.warn({ err, instanceId }, `${this.label} lease claim failed`);
    }
    if (won) this.held.set(instanceId, until);
    else this.held.delete(instanceId);
    return won;
  }

  private async renewAll(): Promise<void> {
    for (const instanceId of [...this.held.keys()]) await this.claim(instanceId);
  }
}
