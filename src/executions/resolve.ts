/**
 * Which targets run, in which order (reference facts §3.2, §3.3): for a request or response
 * only the most specific execution (method, then service, then all); for an event the exact
 * name, else the longest matching group, else all; for a function its name. Includes expand
 * depth-first after the execution's own targets. Targets that no longer exist are skipped.
 */
import { groupPrefix, MAX_INCLUDE_LEVELS, type ExecutionEntry } from '../../actors/index.js';
import type { InstancePlan } from './plans.js';
import type { ResolvedTarget } from './target-call.js';

export function callTargets(plan: InstancePlan, type: 'request' | 'response', service: string, fullMethod: string): readonly ResolvedTarget[] {
  const key = `${type}${fullMethod}`;
  const memo = plan.memo.get(key);
  if (memo !== undefined) return memo;
  const id = [key, `${type}/${service}`, type].find((candidate) => plan.entries.has(candidate));
  const targets = id === undefined ? [] : expand(plan, id);
  plan.memo.set(key, targets);
  return targets;
}

/** Targets for an event; only executions created before the event count. */
export function eventTargets(plan: InstancePlan, eventType: string, position: number): readonly ResolvedTarget[] {
  const existed = (id: string) => {
    const entry = plan.entries.get(id);
    return entry !== undefined && entry.createdPosition < position ? entry : undefined;
  };
  if (existed(`event/${eventType}`)) return expand(plan, `event/${eventType}`);
  let best: { id: string; length: number } | undefined;
  for (const [id, entry] of plan.entries) {
    if (entry.condition.type !== 'event' || entry.condition.match !== 'group' || existed(id) === undefined) continue;
    const prefix = groupPrefix(entry.condition.value);
    if (eventType.startsWith(`${prefix}.`) && (best === undefined || prefix.length > best.length)) best = { id, length: prefix.length };
  }
  if (best !== undefined) return expand(plan, best.id);
  return existed('event') === undefined ? [] : expand(plan, 'event');
}

export function functionTargets(plan: InstancePlan, name: string): readonly ResolvedTarget[] {
  return plan.entries.has(`function/${name}`) ? expand(plan, `function/${name}`) : [];
}

/** Own targets first, then each include in order; bounded even if stored data were cyclic. */
function expand(plan: InstancePlan, id: string): ResolvedTarget[] {
  const out: ResolvedTarget[] = [];
  const visit = (entry: ExecutionEntry | undefined, level: number, seen: ReadonlySet<string>) => {
    if (entry === undefined || level > MAX_INCLUDE_LEVELS) return;
    for (const targetId of entry.targets) {
      const target = plan.targets.get(targetId);
      if (target !== undefined) out.push(target);
    }
    for (const include of entry.includes) {
      if (!seen.has(include)) visit(plan.entries.get(include), level + 1, new Set([...seen, include]));
    }
  };
  visit(plan.entries.get(id), 0, new Set([id]));
  return out;
}
