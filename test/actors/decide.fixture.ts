/** Given aggregates → a LoadedSet and a command context, for pure decider tests. */
import type { AggregateKind, AggregateRecord, Loaded } from '../../actors/kernel/aggregate.js';
import { AppError } from '../../actors/kernel/errors.js';
import type { CommandContext, LoadedSet, Outcome } from '../../actors/kernel/command.js';
import { createIdGenerator } from '../../actors/kernel/ids.js';
import type { Owner } from '../../actors/kernel/ports.js';

export const NOW = Date.UTC(2026, 5, 1);

export function context(overrides: Partial<CommandContext> = {}): CommandContext {
  return {
    instanceId: 'i1',
    now: NOW,
    creator: 'u-admin',
    ids: createIdGenerator(() => NOW, 1),
    sealer: { seal: (s) => `sealed:${s}`, open: (s) => s.replace(/^sealed:/, '') },
    ...overrides,
  };
}

export function record<S>(id: string, state: S, owner: Owner, version = 1): AggregateRecord<S> {
  return { id, state, meta: { version, sequence: version, createdAt: NOW - 1000, changedAt: NOW - 500, owner } };
}

/** Aggregates the test knows about; any other (kind, id) is absent with version 0. */
export function given(entries: { kind: AggregateKind<any>; record?: AggregateRecord<any>; id?: string; version?: number }[]): LoadedSet {
  return {
    get<S>(kind: AggregateKind<S>, id: string): Loaded<S> {
      const entry = entries.find((e) => e.kind.type === kind.type && (e.record?.id ?? e.id) === id);
      const version = entry?.version ?? entry?.record?.meta.version ?? 0;
      return { kind, id, version, record: entry?.record } as Loaded<S>;
    },
  };
}

export const noOutcome: Outcome = { events: [], record: () => undefined };

/** The error code `fn` throws (`not-an-app-error` for anything but an AppError), undefined when it returns. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : 'not-an-app-error';
  }
  return undefined;
}
