/**
 * Write-time checks of includes (reference facts §3.3): every include exists and has the
 * same condition type, no path leads back to the execution (400 "circular include"), and the
 * longest include chain through it has at most two edges (A → B → C; a third level is
 * 400 "max levels include"). Runtime expansion can then never loop.
 */
import { invalidArgument, notFound } from '../kernel/errors.js';
import type { ExecutionEntry } from './execution.js';
import { conditionTypeOf } from './execution-condition.js';

/** Edges allowed on any include chain. */
export const MAX_INCLUDE_LEVELS = 2;

type Entries = Readonly<Record<string, ExecutionEntry>>;

export function checkIncludes(entries: Entries, id: string, includes: readonly string[]): void {
  const type = conditionTypeOf(id);
  for (const include of includes) {
    if (include === id) throw invalidArgument('execution.circular_include', 'circular include');
    if (entries[include] === undefined) throw notFound('execution.include_not_found', 'include not found');
    if (conditionTypeOf(include) !== type) {
      throw invalidArgument('execution.include_type_mismatch', 'an include must have the same condition type');
    }
  }
  const includesOf = (x: string): readonly string[] => (x === id ? includes : (entries[x]?.includes ?? []));
  if (reaches(includesOf, includes, id)) throw invalidArgument('execution.circular_include', 'circular include');
  if (levelsAbove(entries, id) + levelsBelow(includesOf, id) > MAX_INCLUDE_LEVELS) {
    throw invalidArgument('execution.max_include_levels', 'max levels include');
  }
}

/** True when `goal` is reachable from `start` along includes. */
function reaches(includesOf: (x: string) => readonly string[], start: readonly string[], goal: string): boolean {
  const seen = new Set<string>();
  const stack = [...start];
  while (stack.length > 0) {
    const next = stack.pop()!; // non-empty
    if (next === goal) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...includesOf(next));
  }
  return false;
}

/** Longest chain of edges below `id` (the graph is acyclic once `reaches` passed). */
function levelsBelow(includesOf: (x: string) => readonly string[], id: string): number {
  let deepest = 0;
  for (const child of includesOf(id)) deepest = Math.max(deepest, 1 + levelsBelow(includesOf, child));
  return deepest;
}

/** Longest chain of edges from any execution that (transitively) includes `id`. */
function levelsAbove(entries: Entries, id: string): number {
  let highest = 0;
  for (const [parent, entry] of Object.entries(entries)) {
    if (parent !== id && entry.includes.includes(id)) highest = Math.max(highest, 1 + levelsAbove(entries, parent));
  }
  return highest;
}

/** Ids of the executions that include `id`. */
export function includersOf(entries: Entries, id: string): string[] {
  return Object.entries(entries)
    .filter(([other, entry]) => other !== id && entry.includes.includes(id))
    .map(([other]) => other);
}
