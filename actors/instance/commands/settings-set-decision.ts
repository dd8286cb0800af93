/**
 * The decision every "set settings of a context" command shares (seed 000 "Rules for
 * settings"): the organization must exist when the context is one, a patch that changes
 * nothing records no event, and the reply names the context's row. The commands add their own
 * checks before calling it.
 */
import type { AggregateKind } from '../../kernel/aggregate.js';
import type { CommandContext, Decision, LoadedSet, Outcome } from '../../kernel/command.js';
import { notFound } from '../../kernel/errors.js';
import { detailsAfter, instanceOwner, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { isNoopPatch, type SettingsPatch } from '../../kernel/settings-resolver.js';
import { orgKind } from '../../organization/org.js';

export interface SettingsSet<T> {
  readonly kind: AggregateKind<Partial<T>>;
  /** The context's row id. */
  readonly rowId: string;
  /** The organization whose settings change; undefined: the instance. */
  readonly orgId: string | undefined;
  readonly patch: SettingsPatch<T>;
  /** `<instance|org>.settings.<name>.set`. */
  readonly name: string;
  /** Recorded next to `set` / `reset` (e.g. the language of a text row). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export function decideSettingsSet<T>(loaded: LoadedSet, ctx: CommandContext, s: SettingsSet<T>): Decision<ResourceDetails> {
  if (s.orgId !== undefined && loaded.get(orgKind, s.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
  const owner = s.orgId === undefined ? instanceOwner(ctx.instanceId) : orgOwner(s.orgId);
  const row = loaded.get(s.kind, s.rowId).record;
  const reply = (outcome: Outcome) => detailsAfter(outcome, { id: s.rowId, record: row, owner });
  if (isNoopPatch(row?.state, s.patch)) return { events: [], reply };
  const type = `${s.orgId === undefined ? 'instance' : 'org'}.settings.${s.name}.set`;
  const payload = { ...s.extra, set: s.patch.set, reset: s.patch.reset };
  return { events: [{ aggregateType: s.kind.type, aggregateId: s.rowId, type, owner, creator: ctx.creator, payload }], reply };
}
