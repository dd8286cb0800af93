/** Which targets run: most specific execution, includes in order, event matching (reference facts §3.2/§3.3). */
import { describe, expect, it } from 'vitest';
import { executionIdOf, type ExecutionCondition, type ExecutionEntry } from '../../actors/index.js';
import type { InstancePlan } from '../../src/executions/plans.js';
import { callTargets, eventTargets, functionTargets } from '../../src/executions/resolve.js';
import type { ResolvedTarget } from '../../src/executions/target-call.js';

const target = (id: string): ResolvedTarget => ({
  id,
  targetType: 'rest_webhook',
  url: `http://127.0.0.1/${id}`,
  timeoutMs: 1000,
  executionType: 'none',
  signingKey: 'k',
  previousSigningKey: '',
  previousKeyExpiresAt: 0,
});

function plan(entries: [ExecutionCondition, string[], string[]?, number?][]): InstancePlan {
  const map = new Map<string, ExecutionEntry>();
  for (const [condition, targets, includes = [], createdPosition = 1] of entries) {
    map.set(executionIdOf(condition), { condition, targets, includes, createdAt: 0, changedAt: 0, createdPosition, sequence: createdPosition });
  }
  const ids = new Set([...map.values()].flatMap((e) => e.targets));
  return { instanceId: 'i1', entries: map, targets: new Map([...ids].map((id) => [id, target(id)])), memo: new Map(), hasEvents: true };
}

const ids = (targets: readonly ResolvedTarget[]) => targets.map((t) => t.id);

describe('request / response conditions', () => {
  const p = plan([
    [{ type: 'request', match: 'all', value: '' }, ['all']],
    [{ type: 'request', match: 'service', value: 'pkg.Svc' }, ['svc']],
    [{ type: 'request', match: 'method', value: '/pkg.Svc/M' }, ['m1', 'm2'], ['request/other.Svc']],
    [{ type: 'request', match: 'service', value: 'other.Svc' }, ['other'], ['request']],
  ]);

  it('uses only the most specific execution: method, then service, then all', () => {
    expect(ids(callTargets(p, 'request', 'pkg.Svc', '/pkg.Svc/M'))).toEqual(['m1', 'm2', 'other', 'all']);
    expect(ids(callTargets(p, 'request', 'pkg.Svc', '/pkg.Svc/N'))).toEqual(['svc']);
    expect(ids(callTargets(p, 'request', 'x.Y', '/x.Y/Z'))).toEqual(['all']);
    expect(ids(callTargets(p, 'response', 'pkg.Svc', '/pkg.Svc/M'))).toEqual([]);
  });

  it('skips targets that no longer exist', () => {
    const gone = plan([[{ type: 'response', match: 'all', value: '' }, ['t1']]]);
    (gone.targets as Map<string, ResolvedTarget>).clear();
    expect(callTargets(gone, 'response', 'a.B', '/a.B/C')).toEqual([]);
  });
});

describe('event conditions', () => {
  const p = plan([
    [{ type: 'event', match: 'all', value: '' }, ['all']],
    [{ type: 'event', match: 'group', value: 'user' }, ['user']],
    [{ type: 'event', match: 'group', value: 'user.machine.*' }, ['machine']],
    [{ type: 'event', match: 'event', value: 'user.machine.added' }, ['added'], [], 50],
  ]);

  it('matches the exact event, else the longest group, else all', () => {
    expect(ids(eventTargets(p, 'user.machine.added', 60))).toEqual(['added']);
    expect(ids(eventTargets(p, 'user.machine.changed', 60))).toEqual(['machine']);
    expect(ids(eventTargets(p, 'user.human.added', 60))).toEqual(['user']);
    expect(ids(eventTargets(p, 'org.added', 60))).toEqual(['all']);
    expect(ids(eventTargets(p, 'username.changed', 60))).toEqual(['all']); // a group is a dotted prefix
  });

  it('ignores executions created after the event', () => {
    expect(ids(eventTargets(p, 'user.machine.added', 40))).toEqual(['machine']);
  });
});

describe('function conditions', () => {
  it('match the exact name', () => {
    const p = plan([[{ type: 'function', match: 'function', value: 'preaccesstoken' }, ['f']]]);
    expect(ids(functionTargets(p, 'preaccesstoken'))).toEqual(['f']);
    expect(functionTargets(p, 'preuserinfo')).toEqual([]);
  });
});
