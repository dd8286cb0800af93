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
          entry.read = new Map(loaded.streams.map((s) => [`${s.aggregateType}:${s.aggregateId}`, s.version]));
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
    if (streams === undefined) {
      this.entries.clear();
      this.watchers.clear();
      return;
    }
    for (const stream of streams) {
      const streamKey = `${stream.aggregateType}:${stream.aggregateId}`;
      const keys = this.watchers.get(streamKey);
      if (keys === undefined) continue;
      for (const key of keys) {
        const entry = this.entries.get(key);
        if (entry === undefined) continue;
        const at = entry.streams.indexOf(streamKey);
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
    const streams = ids.map((id) => `${type}:${id}`);
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
  const version = entry.read.get(`${stream.aggregateType}:${stream.aggregateId}`);
  return version !== undefined && version < stream.version;
}
