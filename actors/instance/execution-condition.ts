/**
 * Execution conditions and the execution ids derived from them (reference facts §3.2): one
 * execution per condition, id `request`, `request/<service>`, `request/<service>/<method>`,
 * `function/<name>`, `event`, `event/<group>.*`, `event/<event>`. The dotted alias
 * `<type>.<value>` (seed 000's include example) is accepted wherever an id is read.
 */

export type ConditionType = 'request' | 'response' | 'function' | 'event';

export type ExecutionCondition =
  | { readonly type: 'request' | 'response'; readonly match: 'method' | 'service' | 'all'; readonly value: string }
  | { readonly type: 'function'; readonly match: 'function'; readonly value: string }
  | { readonly type: 'event'; readonly match: 'event' | 'group' | 'all'; readonly value: string };

export const CONDITION_TYPES: readonly ConditionType[] = ['request', 'response', 'function', 'event'];

/** The execution id of a condition (reference form). */
export function executionIdOf(condition: ExecutionCondition): string {
  const { type, match, value } = condition;
  if (match === 'all') return type;
  if (match === 'method') return `${type}${value.startsWith('/') ? value : `/${value}`}`;
  if (match === 'group') return `${type}/${value.endsWith('.*') ? value : `${value}.*`}`;
  return `${type}/${value}`;
}

/** The reference form of an id given in either form (`request.pkg.Svc` → `request/pkg.Svc`). */
export function canonicalExecutionId(id: string): string {
  const alias = /^(request|response|function|event)\.(.+)$/.exec(id);
  if (alias === null) return id;
  const rest = alias[2]!; // group 2 always matches
  return `${alias[1]}${rest.startsWith('/') ? rest : `/${rest}`}`;
}

/** The condition type an execution id belongs to, or undefined for a malformed id. */
export function conditionTypeOf(id: string): ConditionType | undefined {
  const slash = id.indexOf('/');
  const head = slash === -1 ? id : id.slice(0, slash);
  return CONDITION_TYPES.find((t) => t === head);
}

/** The group of a group condition without its `.*` suffix (`user.human.*` → `user.human`). */
export function groupPrefix(group: string): string {
  return group.endsWith('.*') ? group.slice(0, -2) : group;
}
