/**
 * The instance's read state (issue 13, docs/architecture.md "Instance read state"): the
 * resolved settings the login UI and the OIDC layer ask for, held by the actor system beside the
 * instance actor — created by the first query, dropped when the instance passivates.
 *
 * Every entry remembers the streams (aggregate type and id) it was computed from and the version
 * each had when it was read (0: no row). The one invalidation is `applyChange`: the streams of a
 * change at their new versions, from this node's own appends (the actor system, before the
 * command replies), from the other workers of the node (worker feed) and from the other nodes
 * (PostgreSQL change feed). An entry computed from an older version of a changed stream is
 * dropped; one still being read when a change of its streams arrives is dropped too (its
 * callers get their answer, nobody else reuses it). There is no expiry: nothing else changes
 * settings.
 *
 * Edges hold what they derive from the instance's streams here too (`hold`: the signing key
 * ring, the execution plan): a value read by the edge's loader, which reports the streams it
 * read at their versions; `applyChange` drops it like a settings entry, so the same one
 * invalidation reaches it, and passivation drops it with the rest. A held value is returned
 * synchronously once loaded (the token endpoint's key ring is a Map lookup).
 */
import type { AggregateRecord } from '../kernel/aggregate.js';
import type { ChangedStream } from '../kernel/ports.js';
import { brandingSettingsKind, resolveBrandingSettings, type BrandingSettings, type BrandingSettingsValues } from './branding-settings.js';
import { effectiveLoginSettings, loginSettingsKind, type EffectiveLoginSettings, type LoginSettings } from './login-settings.js';
import { resolveTextSettings, textSettingsId, textSettingsKind, type TextSettings, type TextSettingsValues } from './text-settings.js';

/** How the read state reads a row (the store's getRecord for the instance; no request-scoped reads). */
export type ReadRow = (table: string, id: string) => Promise<AggregateRecord<unknown> | undefined>;

/** The built-in texts of one language (the catalog the login UI ships): the keys to resolve and their defaults. */
export interface TextCatalog {
  readonly keys: readonly string[];
  readonly values: TextSettingsValues;
}

/** What an edge's loader returns: the value and the streams it was read from, at the versions read (0: no row). */
export interface Held<V> {
  readonly value: V;
  readonly streams: readonly ChangedStream[];
}

/** Reads a held value for an instance; one function per kind of value (no closure per call). */
export type HeldLoader<V> = (instanceId: string) => Promise<Held<V>>;

/** Where the edges find an instance's state (the ActorSystem; a test's Map). */
export interface InstanceStates {
  instanceState(instanceId: string): InstanceReadState;
}

interface HeldEntry {
  /** Stream types a load under way depends on: a change of any of them drops it. */
  readonly types: readonly string[];
  /** Stream key → version read; undefined while loading. */
  read: Map<string, number> | undefined;
  value: unknown;
  pending: Promise<unknown>;
  /** Told (with the instance id) when a change dropped the value, not when the instance passivates. */
  readonly onDrop: ((instanceId: string) => void) | undefined;
}

/**
 * A family of values an edge holds per id within an instance (the OIDC clients by client id):
 * bounded, because the id space may be attacker-controlled. A value the loader found depends on
 * the streams it read (dropped when one moves past the version read); a miss (`streams`
 * undefined) depends on stream types (dropped when any stream of `types` moves: a creation or a
 * rename could make the id known). Misses have their own, smaller bound, so a flood of unknown
 * ids never evicts a found value.
 */
export interface HeldFamily<V> {
  readonly name: string;
  /** Found values one instance holds; the oldest goes first. */
  readonly max: number;
  /** Misses one instance holds; the oldest goes first. */
  readonly maxMisses: number;
  /** Stream types a miss, or a load under way, depends on. */
  readonly types: readonly string[];
  load(instanceId: string, id: string): Promise<HeldById<V>>;
}

/** What a family's loader returns: the value and the streams read (undefined: a miss, see HeldFamily). */
export interface HeldById<V> {
  readonly value: V;
  readonly streams: readonly ChangedStream[] | undefined;
}

interface IdEntry {
  /** Stream key → version read; undefined while loading or for a miss. */
  read: Map<string, number> | undefined;
  loaded: boolean;
  value: unknown;
  pending: Promise<unknown>;
}

/** One family's values in one instance: found values indexed by stream, misses apart. */
class HeldIds {
  readonly found = new Map<string, IdEntry>();
  readonly misses = new Map<string, IdEntry>();
  readonly loading = new Map<string, IdEntry>();
  /** Stream key → ids of found values read from it. */
  private readonly byStream = new Map<string, Set<string>>();

  constructor(private readonly family: HeldFamily<unknown>, private readonly instanceId: string) {}

  get(id: string): unknown {
    const hit = this.found.get(id) ?? this.misses.get(id);
    if (hit !== undefined) return hit.value;
    return this.loading.get(id)?.pending ?? this.load(id);
  }

  load(id: string): Promise<unknown> {
    const entry: IdEntry = { read: undefined, loaded: false, value: undefined, pending: undefined as unknown as Promise<unknown> };
    entry.pending = this.family.load(this.instanceId, id).then(
      (loaded) => {
        if (this.loading.get(id) === entry) {
          this.loading.delete(id);
          this.remove(id);
          entry.loaded = true;
          entry.value = loaded.value;
          if (loaded.streams === undefined) this.keep(this.misses, this.family.maxMisses, id, entry);
          else {
            entry.read = new Map(loaded.streams.map((s) => [streamKey(s), s.version]));
            this.keep(this.found, this.family.max, id, entry);
            for (const key of entry.read.keys()) {
              let ids = this.byStream.get(key);
              if (ids === undefined) this.byStream.set(key, (ids = new Set()));
              ids.add(id);
            }
          }
        }
        return loaded.value;
      },
      (error: unknown) => {
        if (this.loading.get(id) === entry) this.loading.delete(id);
        throw error;
      },
    );
    this.loading.set(id, entry);
    return entry.pending;
  }

  applyChange(streams: readonly ChangedStream[] | undefined): void {
    if (streams === undefined) {
      this.found.clear();
      this.misses.clear();
      this.loading.clear();
      this.byStream.clear();
      return;
    }
    for (const stream of streams) {
      if (this.family.types.includes(stream.aggregateType)) {
        this.misses.clear();
        this.loading.clear();
      }
      const key = streamKey(stream);
      const ids = this.byStream.get(key);
      if (ids === undefined) continue;
      for (const id of [...ids]) {
        const version = this.found.get(id)?.read?.get(key);
        if (version !== undefined && version < stream.version) this.remove(id);
      }
    }
  }

  private keep(map: Map<string, IdEntry>, max: number, id: string, entry: IdEntry): void {
    if (map.size >= max) this.remove(map.keys().next().value as string); // size checked above
    map.set(id, entry);
  }

  /** Drops what is held for `id` (found or miss), with its stream index. */
  remove(id: string): void {
    this.misses.delete(id);
    const entry = this.found.get(id);
    if (entry === undefined) return;
    this.found.delete(id);
    for (const key of entry.read?.keys() ?? []) {
      const ids = this.byStream.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.byStream.delete(key);
    }
  }
}

function streamKey(stream: Pick<ChangedStream, 'aggregateType' | 'aggregateId'>): string {
  return `${stream.aggregateType}:${stream.aggregateId}`;
}

/** A stream as a loader read it: the row's version, 0 when there was no row (what `Held` / `HeldById` report). */
export function streamAt(aggregateType: string, aggregateId: string, row: { readonly meta: { readonly version: number } } | undefined): ChangedStream {
  return { aggregateType, aggregateId, version: row?.meta.version ?? 0 };
}

/** Entries one instance keeps before it starts over (a bound, not a policy: a few per org and language). */
const MAX_ENTRIES = 4_096;

interface Entry {
  /** Stream keys (`type:id`) the value was computed from. */
  readonly streams: readonly string[];
  /** Their versions as read, in the order of `streams`; undefined while the read is under way. */
  versions: number[] | undefined;
  value: Promise<unknown>;
}

export class InstanceReadState {
  private readonly entries = new Map<string, Entry>();
  /** Stream key → keys of the entries computed from it. */
  private readonly watchers = new Map<string, Set<string>>();
  /** What edges hold (`hold`), by key. */
  private readonly held = new Map<string, HeldEntry>();
  /** What edges hold per id (`holdById`), by family. */
  private readonly families = new Map<HeldFamily<unknown>, HeldIds>();
  /** Last query (clock ms), for passivation. */
  lastActivity: number;

  constructor(
    readonly instanceId: string,
    private readonly read: ReadRow,
    now: number,
  ) {
    this.lastActivity = now;
  }

  /** Entries held (for tests and the docs' claims; no caller needs it to decide anything). */
  get size(): number {
    return this.entries.size;
  }

  /** Whether an edge's value is held (loaded or loading) under `key` (tests, docs' claims). */
  holds(key: string): boolean {
    return this.held.has(key);
  }

  /**
   * The value an edge keeps under `key`: synchronously once loaded, else the load under way
   * (one per key, however many callers). `load` reports the streams it read; the value is
   * dropped when one of them moves past the version read, or — while still loading — when any
   * stream of `types` moves (its callers get their answer, nobody else reuses it). A failed
   * load is not kept. `onDrop` hears of a drop by a change (e.g. to reload eagerly).
   */
  hold<V>(key: string, types: readonly string[], load: HeldLoader<V>, onDrop?: (instanceId: string) => void): V | Promise<V> {
    const hit = this.held.get(key);
    if (hit !== undefined) return hit.read !== undefined ? (hit.value as V) : (hit.pending as Promise<V>);
    const entry: HeldEntry = { types, read: undefined, value: undefined, pending: undefined as unknown as Promise<unknown>, onDrop };
    const pending = load(this.instanceId).then(
      (loaded) => {
        if (this.held.get(key) === entry) {
          entry.read = new Map(loaded.streams.map((s) => [streamKey(s), s.version]));
          entry.value = loaded.value;
        }
        return loaded.value;
      },
      (error: unknown) => {
        if (this.held.get(key) === entry) this.held.delete(key);
        throw error;
      },
    );
    entry.pending = pending;
    this.held.set(key, entry);
    return pending;
  }

  /**
   * The value `family` holds for `id`: synchronously when held (one Map lookup, a miss
   * included), else the load under way (one per id). See HeldFamily for what drops it.
   */
  holdById<V>(family: HeldFamily<V>, id: string): V | Promise<V> {
    return this.idsOf(family).get(id) as V | Promise<V>;
  }

  /** Reads `id` anew, bypassing what is held, and holds the result instead (a client's auth that failed against a held value). */
  reloadById<V>(family: HeldFamily<V>, id: string): Promise<V> {
    const ids = this.idsOf(family);
    ids.remove(id);
    return ids.load(id) as Promise<V>;
  }

  /** How many found values and misses `family` holds here (tests, the docs' claims). */
  heldCount(family: HeldFamily<unknown>): { readonly found: number; readonly misses: number } {
    const ids = this.families.get(family);
    return { found: ids?.found.size ?? 0, misses: ids?.misses.size ?? 0 };
  }

  private idsOf(family: HeldFamily<unknown>): HeldIds {
    let ids = this.families.get(family);
    if (ids === undefined) this.families.set(family, (ids = new HeldIds(family, this.instanceId)));
    return ids;
  }

  /** The effective login policy of an organization (its own, else the instance's) or of the instance (`orgId` undefined). */
  loginSettings(orgId?: string): Promise<EffectiveLoginSettings> {
    const instanceId = this.instanceId;
    const ids = orgId === undefined ? [instanceId] : [instanceId, orgId];
    return this.memo(`login\u0000${orgId ?? ''}`, loginSettingsKind.type, loginSettingsKind.table, ids, ([instance, org]) =>
      effectiveLoginSettings(instanceId, instance as AggregateRecord<LoginSettings> | undefined, orgId === undefined ? undefined : { orgId, record: org as AggregateRecord<LoginSettings> | undefined }),
    );
  }

  /** The branding the login UI shows for the instance or an organization (resolved values). */
  branding(orgId?: string): Promise<BrandingSettingsValues> {
    const instanceId = this.instanceId;
    const ids = orgId === undefined ? [instanceId] : [instanceId, orgId];
    return this.memo(`branding\u0000${orgId ?? ''}`, brandingSettingsKind.type, brandingSettingsKind.table, ids, ([instance, org]) => {
      const resolved = resolveBrandingSettings(instanceId, (instance?.state as BrandingSettings | undefined), orgId === undefined ? undefined : { orgId, values: org?.state as BrandingSettings | undefined });
      return Object.fromEntries(Object.entries(resolved).map(([key, r]) => [key, r.value])) as unknown as BrandingSettingsValues;
    });
  }

  /**
   * The login texts of a language for the instance or an organization, over `catalog` (the
   * language's built-in texts; the same language always comes with the same catalog).
   */
  texts(orgId: string | undefined, lang: string, catalog: TextCatalog): Promise<Readonly<Record<string, string>>> {
    const instanceId = this.instanceId;
    const ids = orgId === undefined ? [textSettingsId(instanceId, lang)] : [textSettingsId(instanceId, lang), textSettingsId(orgId, lang)];
    return this.memo(`texts\u0000${orgId ?? ''}\u0000${lang}`, textSettingsKind.type, textSettingsKind.table, ids, ([instance, org]) => {
      const resolved = resolveTextSettings(catalog.keys, catalog.values, { instanceId, values: instance?.state as TextSettings | undefined }, orgId === undefined ? undefined : { orgId, values: org?.state as TextSettings | undefined });
      return Object.fromEntries(Object.entries(resolved).map(([key, r]) => [key, r.value]));
    });
  }

  /**
   * The one invalidation: streams that moved, at their new versions (undefined: the change does
   * not say which, so everything goes). Entries computed from an older version go; so do reads
   * still under way that depend on a moved stream.
   */
  applyChange(streams: readonly ChangedStream[] | undefined): void {
    if (this.held.size > 0) this.applyToHeld(streams);
    for (const ids of this.families.values()) ids.applyChange(streams);
    if (streams === undefined) {
      this.entries.clear();
      this.watchers.clear();
      return;
    }
    for (const stream of streams) {
      const moved = streamKey(stream);
      const keys = this.watchers.get(moved);
      if (keys === undefined) continue;
      for (const key of keys) {
        const entry = this.entries.get(key);
        if (entry === undefined) continue;
        const at = entry.streams.indexOf(moved);
        if (entry.versions === undefined || (entry.versions[at] ?? 0) < stream.version) this.drop(key, entry);
      }
    }
  }

  /** Drops the held values a change reaches, then tells their owners (who may load again). */
  private applyToHeld(streams: readonly ChangedStream[] | undefined): void {
    const dropped: HeldEntry[] = [];
    for (const [key, entry] of this.held) {
      if (streams !== undefined && !streams.some((stream) => moves(entry, stream))) continue;
      this.held.delete(key);
      dropped.push(entry);
    }
    for (const entry of dropped) entry.onDrop?.(this.instanceId);
  }

  private memo<V>(key: string, type: string, table: string, ids: readonly string[], compute: (rows: readonly (AggregateRecord<unknown> | undefined)[]) => V): Promise<V> {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit.value as Promise<V>;
    if (this.entries.size >= MAX_ENTRIES) {
      this.entries.clear();
      this.watchers.clear();
    }
    const streams = ids.map((id) => streamKey({ aggregateType: type, aggregateId: id }));
    const entry: Entry = { streams, versions: undefined, value: undefined as unknown as Promise<unknown> };
    entry.value = Promise.all(ids.map((id) => this.read(table, id))).then((rows) => {
      const value = compute(rows);
      entry.versions = rows.map((row) => row?.meta.version ?? 0);
      return value;
    });
    // A failed read is not kept: the next query reads again.
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.drop(key, entry);
    });
    this.entries.set(key, entry);
    for (const stream of streams) {
      let keys = this.watchers.get(stream);
      if (keys === undefined) this.watchers.set(stream, (keys = new Set()));
      keys.add(key);
    }
    return entry.value as Promise<V>;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    for (const stream of entry.streams) {
      const keys = this.watchers.get(stream);
      keys?.delete(key);
      if (keys?.size === 0) this.watchers.delete(stream);
    }
  }
}

/** Whether `stream` moved past what `entry` read (or, while it loads, is of a type it reads). */
function moves(entry: HeldEntry, stream: ChangedStream): boolean {
  if (entry.read === undefined) return entry.types.includes(stream.aggregateType);
  const version = entry.read.get(streamKey(stream));
  return version !== undefined && version < stream.version;
}
