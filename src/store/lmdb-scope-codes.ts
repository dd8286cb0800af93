/**
 * The scope an LMDB index entry stores (catalog version 7; key layout: keys.ts): a small number
 * from the instance's scope dictionary instead of the scope itself — an organization id is 19
 * bytes of msgpack, its number 1–5 — so a user's twelve index entries carry their organization
 * once, in the dictionary. The empty scope (instance-level rows) stays '' (one byte either way).
 *
 * The dictionary ([instanceId, 'd', scope] -> number, [instanceId, 'd', number] -> scope,
 * [instanceId, 'd'] the last number given) is written in the append's own write transaction,
 * when an entry of a scope not yet numbered is put, and only grows: a number keeps its scope
 * until a rebuild clears the instance's index keys and dictionary together, before the store
 * serves. So the numbers read from committed data can be held in memory for good; nothing
 * learned inside a write transaction is held, as it may still roll back.
 */
import type { Key, RootDatabase } from 'lmdb';
import * as keys from './keys.js';

type Db = RootDatabase<unknown, Key>;

/**
 * The value an index entry of `scope` stores: its number, given now when the scope has none
 * (call inside the write transaction that puts the entry); the empty scope as itself.
 */
export function scopeValue(db: Db, instanceId: string, scope: string): string | number {
  if (scope === '') return scope;
  const known = db.get(keys.scopeCodeKey(instanceId, scope));
  if (typeof known === 'number') return known;
  const next = Number(db.get(keys.lastScopeCodeKey(instanceId)) ?? 0) + 1;
  db.put(keys.lastScopeCodeKey(instanceId), next);
  db.put(keys.scopeCodeKey(instanceId, scope), next);
  db.put(keys.scopeOfCodeKey(instanceId, next), scope);
  return next;
}

/** Reads the scopes of index entries' values, holding the numbers it has resolved. */
export interface ScopeReader {
  /** The scope an index entry's value stands for (read outside a write transaction). */
  scopeOf(instanceId: string, value: unknown): string;
}

export function createScopeReader(db: Db): ScopeReader {
  // Per instance: number -> scope, as read from committed data.
  const scopes = new Map<string, Map<number, string>>();
  return {
    scopeOf(instanceId, value) {
      if (typeof value !== 'number') return String(value);
      let held = scopes.get(instanceId);
      const scope = held?.get(value);
      if (scope !== undefined) return scope;
      const stored = db.get(keys.scopeOfCodeKey(instanceId, value));
      // Written with the entry, in its transaction: a committed entry's number is always there.
      if (typeof stored !== 'string') throw new Error(`lmdb index: scope number ${value} of instance ${instanceId} is not in its dictionary`);
      if (held === undefined) scopes.set(instanceId, (held = new Map()));
      held.set(value, stored);
      return stored;
    },
  };
}
