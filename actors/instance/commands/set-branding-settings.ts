/**
 * Sets or resets branding settings of the instance or an organization. Only named properties
 * change; colors and URLs must have their strict shapes (they are rendered into the login
 * page). No change → no event.
 */
import { ref, type AggregateRef, type CommandHandler } from '../../kernel/command.js';
import { validationFailed } from '../../kernel/errors.js';
import type { ResourceDetails } from '../../kernel/owner.js';
import type { SettingsPatch } from '../../kernel/settings-resolver.js';
import { orgKind } from '../../organization/org.js';
import { brandingSettingsKind, brandingViolations, type BrandingSettingsValues } from '../branding-settings.js';
import { decideSettingsSet } from './settings-set-decision.js';

export interface SetBrandingSettings {
  /** The organization whose branding changes; undefined: the instance. */
  readonly orgId?: string;
  readonly patch: SettingsPatch<BrandingSettingsValues>;
}

/** `branding.settings.set`: records `<instance|org>.settings.branding.set`. */
export const setBrandingSettings: CommandHandler<SetBrandingSettings, ResourceDetails> = {
  load: (c, ctx) => {
    const refs: AggregateRef[] = [ref(brandingSettingsKind, c.orgId ?? ctx.instanceId)];
    if (c.orgId !== undefined) refs.push(ref(orgKind, c.orgId));
    return refs;
  },
  decide(loaded, c, ctx) {
    const violations = brandingViolations(c.patch.set);
    if (violations.length > 0) throw validationFailed(violations, 'branding.invalid');
    return decideSettingsSet(loaded, ctx, {
      kind: brandingSettingsKind,
      rowId: c.orgId ?? ctx.instanceId,
      orgId: c.orgId,
      patch: c.patch,
      event: (scope, patch) => ({ type: `${scope}.settings.branding.set`, payload: { set: patch.set, reset: patch.reset } }),
    });
  },
};
