/**
 * Sets or resets language settings of the instance or an organization. Only named properties
 * change; keys must be supported languages; the effective default language of the context
 * must be within its effective restricted languages when any are restricted. No change → no event.
 */
import { notFound, validationFailed, type FieldViolation } from '../../kernel/errors.js';
import { ref, type AggregateRef, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { applySettingsPatch, isNoopPatch, type SettingsPatch } from '../../kernel/settings-resolver.js';
import { orgKind } from '../../organization/org.js';
import { languageSettingsKind, resolveLanguageSettings, SUPPORTED_LANGUAGES, type LanguageSettingsValues } from '../language-settings.js';

export interface SetLanguageSettings {
  /** The organization whose settings change; undefined: the instance. */
  readonly orgId?: string;
  readonly patch: SettingsPatch<LanguageSettingsValues>;
}

/** `language.settings.set`: records `<instance|org>.settings.language.set`. */
export const setLanguageSettings: CommandHandler<SetLanguageSettings, ResourceDetails> = {
  load: (c, ctx) => {
    const refs: AggregateRef[] = [ref(languageSettingsKind, ctx.instanceId)];
    if (c.orgId !== undefined) refs.push(ref(languageSettingsKind, c.orgId), ref(orgKind, c.orgId));
    return refs;
  },
  decide(loaded, c, ctx) {
    if (c.orgId !== undefined && loaded.get(orgKind, c.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    checkSupported(c.patch);
    const rowId = c.orgId ?? ctx.instanceId;
    const owner = c.orgId === undefined ? instanceOwner(ctx.instanceId) : orgOwner(c.orgId);
    const row = loaded.get(languageSettingsKind, rowId).record;
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: rowId, record: row, owner });
    const next = applySettingsPatch(row?.state, c.patch);
    const instance = loaded.get(languageSettingsKind, ctx.instanceId).record?.state;
    const resolved =
      c.orgId === undefined ? resolveLanguageSettings(ctx.instanceId, next) : resolveLanguageSettings(ctx.instanceId, instance, { orgId: c.orgId, values: next });
    const restricted = resolved.restrictedLanguages.value;
    if (restricted.length > 0 && !restricted.includes(resolved.defaultLanguage.value)) {
      const description = 'the default language must be one of the restricted languages';
      throw validationFailed([{ field: 'settings.defaultLanguage.key', description }], 'language.default_not_restricted');
    }
    if (isNoopPatch(row?.state, c.patch)) return { events: [], reply };
    const type = c.orgId === undefined ? 'instance.settings.language.set' : 'org.settings.language.set';
    return { events: [{ aggregateType: languageSettingsKind.type, aggregateId: rowId, type, owner, creator: ctx.creator, payload: c.patch }], reply };
  },
};

function checkSupported(patch: SettingsPatch<LanguageSettingsValues>): void {
  const violations: FieldViolation[] = [];
  const { defaultLanguage, restrictedLanguages } = patch.set;
  if (defaultLanguage !== undefined && !SUPPORTED_LANGUAGES.includes(defaultLanguage)) {
    violations.push({ field: 'settings.defaultLanguage.key', description: 'not a supported language' });
  }
  for (const [i, key] of (restrictedLanguages ?? []).entries()) {
    if (!SUPPORTED_LANGUAGES.includes(key)) violations.push({ field: `settings.restrictedLanguages.languages[${i}].key`, description: 'not a supported language' });
  }
  if (violations.length > 0) throw validationFailed(violations, 'language.unsupported');
}
