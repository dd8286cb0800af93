/**
 * Sets the login policy of the instance or of an organization, and resets an organization's
 * back to the instance's. Only named fields change. An organization's first set stores its
 * own whole policy: the instance's current one with the change applied. Refused: a policy
 * that leaves no way to sign in, or forces a second factor while allowing none.
 */
import { ref, type AggregateRef, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { notFound, validationFailed, type FieldViolation } from '../../kernel/errors.js';
import { emitter } from '../../kernel/events.js';
import { detailsAfter, instanceOwner, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../../organization/org.js';
import { effectiveLoginSettings, LOGIN_SETTINGS_FIELDS, loginSettingsKind, sameLoginSetting, type LoginSettings } from '../login-settings.js';

export interface SetLoginSettings {
  /** The organization whose policy changes; undefined: the instance. */
  readonly orgId?: string;
  readonly settings: Partial<LoginSettings>;
}

export interface ResetLoginSettings {
  readonly orgId: string;
}

function loadRefs(orgId: string | undefined, instanceId: string): AggregateRef[] {
  const refs: AggregateRef[] = [ref(loginSettingsKind, instanceId)];
  if (orgId !== undefined) refs.push(ref(loginSettingsKind, orgId), ref(orgKind, orgId));
  return refs;
}

/** `instance.policy.login.set` / `org.policy.login.set` with the changed fields. */
export const setLoginSettings: CommandHandler<SetLoginSettings, ResourceDetails> = {
  load: (c, ctx) => loadRefs(c.orgId, ctx.instanceId),
  decide(loaded, c, ctx) {
    if (c.orgId !== undefined && loaded.get(orgKind, c.orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    const instance = loaded.get(loginSettingsKind, ctx.instanceId).record;
    const rowId = c.orgId ?? ctx.instanceId;
    const row = c.orgId === undefined ? instance : loaded.get(loginSettingsKind, c.orgId).record;
    const current = effectiveLoginSettings(ctx.instanceId, instance, c.orgId === undefined ? undefined : { orgId: c.orgId, record: row }).settings;
    const next: LoginSettings = { ...current, ...definedOnly(c.settings) };
    const violations = loginSettingsViolations(next);
    if (violations.length > 0) throw validationFailed(violations);

    const owner = c.orgId === undefined ? instanceOwner(ctx.instanceId) : orgOwner(c.orgId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: rowId, record: row, owner });
    // An organization without its own policy takes a whole copy: later instance changes no longer reach it.
    const copying = c.orgId !== undefined && row === undefined;
    const changed = Object.fromEntries(LOGIN_SETTINGS_FIELDS.filter((f) => copying || !sameLoginSetting(current[f], next[f])).map((f) => [f, next[f]])) as Partial<LoginSettings>;
    if (Object.keys(changed).length === 0) return { events: [], reply };
    const emit = emitter(loginSettingsKind, rowId, owner, ctx.creator);
    return { events: [emit({ type: c.orgId === undefined ? 'instance.policy.login.set' : 'org.policy.login.set', payload: changed })], reply };
  },
};

/** `org.policy.login.removed`: the organization inherits the instance's policy again (nothing to remove: no event). */
export const resetLoginSettings: CommandHandler<ResetLoginSettings, ResourceDetails> = {
  load: (c, ctx) => loadRefs(c.orgId, ctx.instanceId),
  decide(loaded, c, ctx) {
    const org = loaded.get(orgKind, c.orgId).record;
    if (org === undefined) throw notFound('org.not_found', 'organization not found');
    const row = loaded.get(loginSettingsKind, c.orgId).record;
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.orgId, record: row ?? org, owner });
    if (row === undefined) return { events: [], reply };
    const emit = emitter(loginSettingsKind, c.orgId, owner, ctx.creator);
    return { events: [emit({ type: 'org.policy.login.removed', payload: {} })], reply };
  },
};

/** What makes a policy unusable, named by the API field that causes it. */
export function loginSettingsViolations(s: LoginSettings): FieldViolation[] {
  const v: FieldViolation[] = [];
  if (!s.allowUsernamePassword && !s.allowExternalIdp && !(s.passwordlessAllowed && s.multiFactors.length > 0)) {
    v.push({ field: 'settings.allowUsernamePassword', description: 'no way to sign in would remain: allow username/password, external identity providers or passwordless login' });
  }
  if ((s.forceMfa || s.forceMfaLocalOnly) && s.secondFactors.length === 0) {
    v.push({ field: 'settings.secondFactors', description: 'must allow at least one second factor while a second factor is forced' });
  }
  return v;
}

function definedOnly(partial: Partial<LoginSettings>): Partial<LoginSettings> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<LoginSettings>;
}
