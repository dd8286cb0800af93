/**
 * Sets or resets login texts of the instance or an organization in one language. Only named
 * keys change; the language must be supported (the edge checks the keys against the login
 * catalog). No change → no event.
 */
import { ref, type AggregateRef, type CommandHandler } from '../../kernel/command.js';
import { validationFailed } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { SettingsPatch } from '../../kernel/settings-resolver.js';
import { orgKind } from '../../organization/org.js';
import { SUPPORTED_LANGUAGES } from '../language-settings.js';
import { textSettingsId, textSettingsKind, type TextSettingsValues } from '../text-settings.js';
import { decideSettingsSet } from './settings-set-decision.js';

export interface SetTextSettings {
  /** The organization whose texts change; undefined: the instance. */
  readonly orgId?: string;
  readonly language: string;
  readonly patch: SettingsPatch<TextSettingsValues>;
}

/** `text.settings.set`: records `<instance|org>.settings.text.set` with the language. */
export const setTextSettings: CommandHandler<SetTextSettings, ResourceDetails> = {
  load: (c, ctx) => {
    const refs: AggregateRef[] = [ref(textSettingsKind, textSettingsId(c.orgId ?? ctx.instanceId, c.language))];
    if (c.orgId !== undefined) refs.push(ref(orgKind, c.orgId));
    return refs;
  },
  decide(loaded, c, ctx) {
    if (!SUPPORTED_LANGUAGES.includes(c.language)) throw validationFailed([{ field: 'language', description: 'not a supported language' }], 'language.unsupported');
    const rowId = textSettingsId(c.orgId ?? ctx.instanceId, c.language);
    return decideSettingsSet(loaded, ctx, {
      kind: textSettingsKind,
      rowId,
      orgId: c.orgId,
      patch: c.patch,
      event: (scope, patch) => ({ type: `${scope}.settings.text.set`, payload: { language: c.language, set: patch.set, reset: patch.reset } }),
    });
  },
};
