/**
 * An actor's cache of the aggregates it loaded or wrote, bounded: past `limit` entries the
 * oldest one (by first insertion) leaves. The cache only saves reads — every append is
 * conditional on the versions read, and refusals re-check staleness — so an evicted aggregate
 * is simply loaded again on its next use. Without the bound one organization's actor kept every
 * user it ever created until it passivated: a million users seeded into one organization
 * held them all in memory.
 */
import type { Loaded } from '../kernel/aggregate.js';

export class AggregateCache extends Map<string, Loaded<unknown>> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: string, value: Loaded<unknown>): this {
    if (this.size >= this.limit && !this.has(key)) {
      const oldest = this.keys().next();
      if (oldest.done !== true) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
