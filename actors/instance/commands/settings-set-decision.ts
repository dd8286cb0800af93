/**
 * The decision every "set settings of a context" command shares (seed 000 "Rules for
 * settings"): the organization must exist when the context is one, a patch that changes
 * nothing records no event, and the reply names the context's row. The commands add their own
 * checks before calling it.
 */
import type { AggregateKind } from '../../kernel/aggregate.js';
import type { CommandContext, Decision, LoadedSet, Outcome } from '../../kernel/command.js';
import { notFound } from '../../kernel/errors.js';
import { emitter, type Emitted, type EventShape } from '../../kernel/events.js';
import { detailsAfter, instanceOwner, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { isNoopPatch, type SettingsPatch } from '../../kernel/settings-resolver.js';
import { orgKind } from '../../organization/org.js';

/** Where a settings event is recorded: the prefix of its type. */
export type SettingsScope = 'instance' | 'org';

export interface SettingsSet<T, E extends EventShape, A extends string> {
  readonly kind: AggregateKind<Partial<T>, E, A>;
  /** The context's row id. */
  readonly rowId: string;
  /** The organization whose settings change; undefined: the instance. */
  readonly orgId: string | undefined;
  readonly patch: SettingsPatch<T>;
  /** The `<instance|org>.settings.<name>.set` event recording the patch. */
  readonly event: (scope: SettingsScope, patch: SettingsPatch<T>) => E;
}

/** A decision whose events are the settings kind's own (the caller's Decision narrows E). */
export type SettingsDecision<E extends EventShape, A extends string> = Omit<Decision<ResourceDetails>, 'events'> & {
  readonly events: readonly Emitted<E, A>[];
};

export function decideSettingsSet<T, E extends EventShape, A extends string>(
  loaded: LoadedSet,
  ctx: CommandContext,
  s: SettingsSet<T, E, A>,
): SettingsDecision<E, A> {
  if (s.orgId !== undefined && loaded.get(orgKind, s.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
  const owner = s.orgId === undefined ? instanceOwner(ctx.instanceId) : orgOwner(s.orgId);
  const row = loaded.get(s.kind, s.rowId).record;
  const reply = (outcome: Outcome) => detailsAfter(outcome, { id: s.rowId, record: row, owner });
  if (isNoopPatch(row?.state, s.patch)) return { events: [], reply };
  const emit = emitter(s.kind, s.rowId, owner, ctx.creator);
  return { events: [emit(s.event(s.orgId === undefined ? 'instance' : 'org', s.patch))], reply };
}
