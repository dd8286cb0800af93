/**
 * The login policy that applies (issue 14 "Login policy settings") for every module that acts
 * on it — the login UI, the OIDC layer, the settings API: `loginSettingsFor(actors, instance,
 * org?)`. An organization's own policy when it has one, else the instance's, else the defaults.
 * Cached per (instance, org) for a few seconds like the login appearance: this node's writes
 * (and, through cluster sync, other nodes' writes) bump the instance's settings generation
 * (settings-changes.ts) and so invalidate it at once.
 */
import { type ActorSystem, effectiveLoginSettings, type EffectiveLoginSettings, loginSettingsKind } from '../../actors/index.js';
import { settingsGeneration } from './settings-changes.js';

const TTL_MS = 5_000;
const MAX_CACHED = 10_000;

interface Entry {
  readonly generation: number;
  readonly expiresAt: number;
  readonly value: Promise<EffectiveLoginSettings>;
}

const cache = new WeakMap<ActorSystem, Map<string, Entry>>();

/** The effective login policy of an organization (its own, else the instance's) or of the instance (`orgId` undefined). */
export function loginSettingsFor(actors: ActorSystem, instanceId: string, orgId?: string, options: { readonly fresh?: boolean } = {}): Promise<EffectiveLoginSettings> {
  if (options.fresh === true) return readLoginSettings(actors, instanceId, orgId);
  let entries = cache.get(actors);
  if (entries === undefined) cache.set(actors, (entries = new Map()));
  const key = `${instanceId}\u0000${orgId ?? ''}`;
  const generation = settingsGeneration(instanceId);
  const now = Date.now();
  const hit = entries.get(key);
  if (hit !== undefined && hit.generation === generation && hit.expiresAt > now) return hit.value;
  if (entries.size >= MAX_CACHED) entries.clear();
  const value = readLoginSettings(actors, instanceId, orgId);
  const table = entries;
  // A failed read is not cached: the next caller tries again.
  value.catch(() => table.delete(key));
  entries.set(key, { generation, expiresAt: now + TTL_MS, value });
  return value;
}

async function readLoginSettings(actors: ActorSystem, instanceId: string, orgId: string | undefined): Promise<EffectiveLoginSettings> {
  const instance = await actors.readRecord(instanceId, loginSettingsKind, instanceId);
  const org = orgId === undefined ? undefined : await actors.readRecord(instanceId, loginSettingsKind, orgId);
  return effectiveLoginSettings(instanceId, instance, orgId === undefined ? undefined : { orgId, record: org });
}
