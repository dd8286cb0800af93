/**
 * An actor's cache of the aggregates it loaded or wrote, bounded: past `limit` entries the
 * oldest one (by first insertion) leaves. The cache only saves reads — every append is
 * conditional on the versions read, and refusals re-check staleness — so an evicted aggregate
 * is simply loaded again on its next use. Without the bound one organization's actor kept every
 * user it ever created until it passivated: a million users seeded into one organization
 * held them all in memory.
 *
 * Every cache of one instance's actors reports the keys it holds to that instance's
 * `HolderIndex`, so a change to a stream finds the caches holding it in one lookup. Before the
 * index, `ActorSystem.forget` looked into every loaded actor of the instance for every changed
 * stream: an instance with 50,000 organizations created in the last minute (each its own actor)
 * spent 50,000 map lookups per change, and a worker applying the other worker's changes fell
 * so far behind that it stopped answering (issue 13).
 */
import type { Loaded } from '../kernel/aggregate.js';

/** Which caches of one instance's actors hold each aggregate (one cache nearly always). */
export class HolderIndex {
  private readonly holders = new Map<string, AggregateCache | AggregateCache[]>();

  /** Drops `key` from every cache holding it at a version older than `version` (a change seen). */
  dropOlder(key: string, version: number): void {
    const found = this.holders.get(key);
    if (found === undefined) return;
    if (!Array.isArray(found)) return dropIfOlder(found, key, version);
    for (const cache of [...found]) dropIfOlder(cache, key, version); // a copy: deleting updates `found`
  }

  /** Keys held by any cache (tests). */
  get size(): number {
    return this.holders.size;
  }

  add(key: string, cache: AggregateCache): void {
    const found = this.holders.get(key);
    if (found === undefined) this.holders.set(key, cache);
    else if (Array.isArray(found)) found.push(cache);
    else this.holders.set(key, [found, cache]);
  }

  remove(key: string, cache: AggregateCache): void {
    const found = this.holders.get(key);
    if (found === cache) {
      this.holders.delete(key);
    } else if (Array.isArray(found)) {
      const at = found.indexOf(cache);
      if (at >= 0) found.splice(at, 1);
      if (found.length === 1) this.holders.set(key, found[0] as AggregateCache);
      else if (found.length === 0) this.holders.delete(key);
    }
  }
}

function dropIfOlder(cache: AggregateCache, key: string, version: number): void {
  const entry = cache.get(key);
  if (entry !== undefined && entry.version < version) cache.delete(key);
}

export class AggregateCache extends Map<string, Loaded<unknown>> {
  constructor(
    private readonly limit: number,
    private readonly index?: HolderIndex,
  ) {
    super();
  }

  override set(key: string, value: Loaded<unknown>): this {
    if (!this.has(key)) {
      if (this.size >= this.limit) {
        const oldest = this.keys().next();
        if (oldest.done !== true) this.delete(oldest.value);
      }
      this.index?.add(key, this);
    }
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    const had = super.delete(key);
    if (had) this.index?.remove(key, this);
    return had;
  }

  override clear(): void {
    const index = this.index;
    if (index !== undefined) for (const key of this.keys()) index.remove(key, this);
    super.clear();
  }
}
