/**
 * Host → instance resolution (design §3). The directory is an in-memory map loaded from the
 * system tenant's `instance.domain` claims; a miss falls back to the store once (another node
 * may have added the domain) and is then remembered in a short-lived, size-capped negative
 * cache, because the Host header is attacker-controlled.
 */
import {
  type ActorSystem,
  type InstanceEntry,
  INSTANCE_DOMAIN_SCOPE,
  instanceKind,
  limitsOf,
  resourceExhausted,
  SYSTEM_TENANT,
} from '../../actors/index.js';

export interface InstanceInfo {
  readonly id: string;
  readonly name: string;
  readonly domains: readonly string[];
  /** The first domain: used for generated org domains. */
  readonly primaryDomain: string;
  /** A blocked instance answers every request with 429 `instance.blocked` (assertInstanceUsable). */
  readonly blocked: boolean;
}

const NEGATIVE_TTL_MS = 5_000;
const NEGATIVE_MAX = 10_000;

export class TenantDirectory {
  private readonly byDomain = new Map<string, InstanceInfo>();
  private readonly byId = new Map<string, InstanceInfo>();
  private readonly misses = new Map<string, number>();
  private readonly versions = new Map<string, number>();

  constructor(private readonly actors: ActorSystem, private readonly now: () => number) {}

  /**
   * Loads every instance of the store (at start, and when a change arrives without its streams):
   * instances no longer in the store are forgotten, so a removal made on another node while its
   * change was lost stops resolving too. One created during the scan and forgotten by it is
   * found again by the next request's store lookup.
   */
  async load(): Promise<void> {
    const present = new Set<string>();
    for await (const record of this.actors.scanRecords(SYSTEM_TENANT, instanceKind)) {
      present.add(record.id);
      this.remember(record.id, record.state);
    }
    for (const id of [...this.byId.keys()]) if (!present.has(id)) this.forget(id);
  }

  /** Adds or refreshes an instance after it was created or changed on this node. */
  remember(id: string, entry: InstanceEntry): InstanceInfo {
    const previous = this.byId.get(id);
    if (previous !== undefined) for (const domain of previous.domains) this.byDomain.delete(domain);
    const info: InstanceInfo = { id, name: entry.name, domains: entry.domains, primaryDomain: entry.domains[0] ?? '', blocked: limitsOf(entry).block };
    this.byId.set(id, info);
    for (const domain of entry.domains) {
      this.byDomain.set(domain, info);
      this.misses.delete(domain);
    }
    return info;
  }

  /**
   * Re-reads an instance's entry after it changed on this node (domains, limits, removal), so
   * the change applies to the next request at once. An older read never replaces a newer one.
   */
  async refresh(id: string): Promise<InstanceInfo | undefined> {
    const record = await this.actors.readRecord(SYSTEM_TENANT, instanceKind, id);
    if (record === undefined) {
      this.forget(id);
      return undefined;
    }
    const seen = this.versions.get(id) ?? 0;
    if (record.meta.version < seen) return this.byId.get(id);
    this.versions.set(id, record.meta.version);
    return this.remember(record.id, record.state);
  }

  forget(id: string): void {
    const info = this.byId.get(id);
    if (info === undefined) return;
    this.byId.delete(id);
    for (const domain of info.domains) this.byDomain.delete(domain);
  }

  byInstanceId(id: string): InstanceInfo | undefined {
    return this.byId.get(id);
  }

  /** The instance of a Host header value this node already knows (no store read); for the fair scheduler's lanes. */
  knownHost(host: string): InstanceInfo | undefined {
    return this.byDomain.get(normalizeHost(host));
  }

  /** Resolves a Host header value (port, case and a trailing dot ignored). */
  async resolveHost(host: string): Promise<InstanceInfo | undefined> {
    const domain = normalizeHost(host);
    const hit = this.byDomain.get(domain);
    if (hit !== undefined || domain === '') return hit;
    return this.lookUp(domain);
  }

  /** Resolves an instance by id, consulting the store when this node does not know it yet. */
  async resolveId(id: string): Promise<InstanceInfo | undefined> {
    const hit = this.byId.get(id);
    if (hit !== undefined) return hit;
    const record = await this.actors.readRecord(SYSTEM_TENANT, instanceKind, id);
    return record === undefined ? undefined : this.remember(record.id, record.state);
  }

  private async lookUp(domain: string): Promise<InstanceInfo | undefined> {
    const missedAt = this.misses.get(domain);
    if (missedAt !== undefined && this.now() - missedAt < NEGATIVE_TTL_MS) return undefined;
    const id = await this.actors.findUnique(SYSTEM_TENANT, INSTANCE_DOMAIN_SCOPE, domain);
    const info = id === undefined ? undefined : await this.resolveId(id);
    if (info === undefined) {
      if (this.misses.size >= NEGATIVE_MAX) this.misses.clear();
      this.misses.set(domain, this.now());
    }
    return info;
  }
}

/**
 * The check every request of an instance passes first (APIs here, OIDC endpoints alike): a
 * blocked instance (SetInstanceLimits `block`) answers 429 until it is unblocked.
 */
export function assertInstanceUsable(instance: InstanceInfo): void {
  if (instance.blocked) throw resourceExhausted('instance.blocked', 'the instance is blocked');
}

/** `Example.COM:8080` → `example.com`; `[::1]:8080` → `[::1]`. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  if (colon !== -1) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}
