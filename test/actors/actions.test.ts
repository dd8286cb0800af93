/** Target and execution deciders and evolve: given state, when command, then events / error code. */
import { describe, expect, it } from 'vitest';
import { createTarget } from '../../actors/instance/commands/create-target.js';
import { patchTarget } from '../../actors/instance/commands/patch-target.js';
import { putExecution } from '../../actors/instance/commands/put-execution.js';
import { removeExecution } from '../../actors/instance/commands/remove-execution.js';
import { removeTarget } from '../../actors/instance/commands/remove-target.js';
import { canonicalExecutionId, executionIdOf, type ExecutionCondition } from '../../actors/instance/execution-condition.js';
import { executionSetKind, type ExecutionEntry, type ExecutionEvent, type ExecutionSet } from '../../actors/instance/execution.js';
import { targetKind, type Target } from '../../actors/instance/target.js';
import { codeOf, context, given, NOW, record } from './decide.fixture.js';
import { recorded } from './fold.fixture.js';

const owner = { type: 'instance', id: 'i1' } as const;

const hook = (): Target => ({
  name: 'hook',
  targetType: 'rest_webhook',
  url: 'https://hooks.example.com/a',
  timeoutNanos: 10e9,
  executionType: 'none',
  signingKey: 'sealed:k1',
  previousSigningKey: '',
  previousKeyExpiresAt: 0,
});

const requestAll: ExecutionCondition = { type: 'request', match: 'all', value: '' };
const requestSvc: ExecutionCondition = { type: 'request', match: 'service', value: 'pkg.Svc' };
const requestMethod: ExecutionCondition = { type: 'request', match: 'method', value: '/pkg.Svc/M' };

function entry(condition: ExecutionCondition, targets: string[], includes: string[] = []): ExecutionEntry {
  return { condition, targets, includes, createdAt: NOW - 1000, changedAt: NOW - 500, createdPosition: 3, sequence: 4 };
}

function executions(entries: ExecutionEntry[]) {
  const state: ExecutionSet = { entries: Object.fromEntries(entries.map((e) => [executionIdOf(e.condition), e])) };
  return { kind: executionSetKind, record: record('i1', state, owner, 4) };
}

const targetT1 = { kind: targetKind, record: record('t1', hook(), owner) };

describe('execution ids (reference facts §3.2)', () => {
  it.each([
    [requestAll, 'request'],
    [requestSvc, 'request/pkg.Svc'],
    [requestMethod, 'request/pkg.Svc/M'],
    [{ type: 'response', match: 'method', value: '/pkg.Svc/M' }, 'response/pkg.Svc/M'],
    [{ type: 'function', match: 'function', value: 'preaccesstoken' }, 'function/preaccesstoken'],
    [{ type: 'event', match: 'all', value: '' }, 'event'],
    [{ type: 'event', match: 'group', value: 'user.human' }, 'event/user.human.*'],
    [{ type: 'event', match: 'group', value: 'user.human.*' }, 'event/user.human.*'],
    [{ type: 'event', match: 'event', value: 'user.human.added' }, 'event/user.human.added'],
  ] as [ExecutionCondition, string][])('%j → %s', (condition, id) => {
    expect(executionIdOf(condition)).toBe(id);
  });

  it('accepts the dotted alias', () => {
    expect(canonicalExecutionId('request.pkg.Svc')).toBe('request/pkg.Svc');
    expect(canonicalExecutionId('request./pkg.Svc/M')).toBe('request/pkg.Svc/M');
    expect(canonicalExecutionId('event.user.human.*')).toBe('event/user.human.*');
    expect(canonicalExecutionId('request/pkg.Svc')).toBe('request/pkg.Svc');
  });
});

describe('createTarget / patchTarget', () => {
  const create = { targetId: 't1', name: ' hook ', targetType: 'rest_webhook', url: 'https://x.example/a', timeoutNanos: 1e9, executionType: 'none', signingKey: 'plain' } as const;

  it('records action.target.added with the key sealed and claims the name', () => {
    const decision = createTarget.decide(given([]), create, context());
    expect(decision.events).toEqual([
      {
        aggregateType: 'target',
        aggregateId: 't1',
        type: 'action.target.added',
        owner,
        creator: 'u-admin',
        payload: { name: 'hook', targetType: 'rest_webhook', url: 'https://x.example/a', timeoutNanos: 1e9, executionType: 'none', signingKey: 'sealed:plain' },
      },
    ]);
    expect(decision.claims).toEqual([{ scope: 'action.target.name', value: 'hook', holder: 't1' }]);
  });

  it('records nothing for a patch that changes nothing', () => {
    const loaded = given([targetT1]);
    expect(patchTarget.decide(loaded, { targetId: 't1', name: 'hook', timeoutNanos: 10e9 }, context()).events).toEqual([]);
    expect(patchTarget.decide(loaded, { targetId: 't1' }, context()).events).toEqual([]);
  });

  it('records only the changed fields and re-claims a new name', () => {
    const decision = patchTarget.decide(given([targetT1]), { targetId: 't1', name: 'other', executionType: 'interrupt' }, context());
    expect(decision.events[0]?.payload).toEqual({ name: 'other', executionType: 'interrupt' });
    expect(decision.claims).toEqual([{ scope: 'action.target.name', value: 'other', holder: 't1' }]);
    expect(decision.releases).toEqual([{ scope: 'action.target.name', value: 'hook' }]);
  });

  it('rotates the signing key, keeping the previous one for the grace period', () => {
    const rotated = patchTarget.decide(given([targetT1]), { targetId: 't1', rotation: { signingKey: 'k2', graceMs: 60_000 } }, context());
    expect(rotated.events[0]?.payload).toEqual({ signingKey: 'sealed:k2', previousSigningKey: 'sealed:k1', previousKeyExpiresAt: NOW + 60_000 });
    const immediate = patchTarget.decide(given([targetT1]), { targetId: 't1', rotation: { signingKey: 'k2', graceMs: 0 } }, context());
    expect(immediate.events[0]?.payload).toEqual({ signingKey: 'sealed:k2', previousSigningKey: '', previousKeyExpiresAt: 0 });
  });

  it('answers 404 for a missing target', () => {
    expect(codeOf(() => patchTarget.decide(given([]), { targetId: 't9', name: 'x' }, context()))).toBe('target.not_found');
    expect(codeOf(() => removeTarget.decide(given([]), { targetId: 't9' }, context()))).toBe('target.not_found');
  });
});

describe('removeTarget', () => {
  it('removes the target from every execution in the same append', () => {
    const loaded = given([targetT1, executions([entry(requestAll, ['t1', 't2']), entry(requestSvc, ['t2'])])]);
    const decision = removeTarget.decide(loaded, { targetId: 't1' }, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([
      ['action.target.removed', {}],
      ['action.execution.set', { id: 'request', condition: requestAll, targets: ['t2'], includes: [] }],
    ]);
    expect(decision.releases).toEqual([{ scope: 'action.target.name', value: 'hook' }]);
  });
});

describe('putExecution', () => {
  it('creates, then records nothing for the same content', () => {
    const created = putExecution.decide(given([targetT1, executions([])]), { condition: requestSvc, targets: ['t1'], includes: [] }, context());
    expect(created.events).toEqual([
      { aggregateType: 'execution', aggregateId: 'i1', type: 'action.execution.set', owner, creator: 'u-admin', payload: { id: 'request/pkg.Svc', condition: requestSvc, targets: ['t1'], includes: [] } },
    ]);
    const same = putExecution.decide(given([targetT1, executions([entry(requestSvc, ['t1'])])]), { condition: requestSvc, targets: ['t1'], includes: [] }, context());
    expect(same.events).toEqual([]);
    expect(same.reply({ events: [], record: () => undefined })).toEqual({ created: false, details: { id: 'request/pkg.Svc', sequence: 4, changeDate: NOW - 500, resourceOwner: owner } });
  });

  it('requires existing targets', () => {
    expect(codeOf(() => putExecution.decide(given([executions([])]), { condition: requestSvc, targets: ['t9'], includes: [] }, context()))).toBe('target.not_found');
  });

  it.each([
    ['an unknown include', [], ['request/other.Svc'], 'execution.include_not_found'],
    ['a self include', [entry(requestSvc, ['t1'])], ['request/pkg.Svc'], 'execution.circular_include'],
    ['an include of another type', [entry({ type: 'event', match: 'all', value: '' }, ['t1'])], ['event'], 'execution.include_type_mismatch'],
    ['a cycle', [entry(requestAll, [], ['request/pkg.Svc'])], ['request'], 'execution.circular_include'],
  ] as [string, ExecutionEntry[], string[], string][])('refuses %s', (_label, existing, includes, code) => {
    const loaded = given([targetT1, executions(existing)]);
    expect(codeOf(() => putExecution.decide(loaded, { condition: requestSvc, targets: ['t1'], includes }, context()))).toBe(code);
  });

  it('refuses a fourth level (A → B → C → D), also when written in the middle', () => {
    const aB: ExecutionCondition = { type: 'request', match: 'service', value: 'a.B' };
    const xY: ExecutionCondition = { type: 'request', match: 'service', value: 'x.Y' };
    const loaded = given([targetT1, executions([entry(requestAll, [], ['request/pkg.Svc/M']), entry(requestMethod, [], ['request/a.B']), entry(aB, ['t1']), entry(xY, ['t1'])])]);
    expect(codeOf(() => putExecution.decide(loaded, { condition: aB, targets: ['t1'], includes: ['request/x.Y'] }, context()))).toBe('execution.max_include_levels');
  });

  it('allows two levels below (A → B → C)', () => {
    const loaded = given([targetT1, executions([entry(requestMethod, ['t1']), entry(requestSvc, [], ['request/pkg.Svc/M'])])]);
    expect(putExecution.decide(loaded, { condition: requestAll, targets: [], includes: ['request/pkg.Svc'] }, context()).events).toHaveLength(1);
  });
});

describe('removeExecution', () => {
  it('refuses while another execution includes it, else records action.execution.removed', () => {
    const loaded = given([executions([entry(requestSvc, ['t1']), entry(requestAll, [], ['request/pkg.Svc'])])]);
    expect(codeOf(() => removeExecution.decide(loaded, { executionId: 'request/pkg.Svc' }, context()))).toBe('execution.included');
    expect(removeExecution.decide(loaded, { executionId: 'request' }, context()).events[0]?.type).toBe('action.execution.removed');
    expect(codeOf(() => removeExecution.decide(loaded, { executionId: 'event' }, context()))).toBe('execution.not_found');
  });
});

describe('executionSetKind.evolve', () => {
  const stored = (e: ExecutionEvent, position: number) => recorded(executionSetKind, e, { owner, position, createdAt: 1000 * position });

  it('keeps creation date and position across updates and drops removed entries', () => {
    let state = executionSetKind.evolve(undefined, stored({ type: 'action.execution.set', payload: { id: 'request', condition: requestAll, targets: ['t1'], includes: [] } }, 5));
    state = executionSetKind.evolve(state, stored({ type: 'action.execution.set', payload: { id: 'request', condition: requestAll, targets: ['t2'], includes: [] } }, 7));
    expect(state?.entries.request).toEqual({ condition: requestAll, targets: ['t2'], includes: [], createdAt: 5000, changedAt: 7000, createdPosition: 5, sequence: 7 });
    state = executionSetKind.evolve(state, stored({ type: 'action.execution.removed', payload: { id: 'request' } }, 8));
    expect(state?.entries).toEqual({});
  });
});
