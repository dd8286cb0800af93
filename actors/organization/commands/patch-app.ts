/**
 * Changes an application: name, and the fields of its OIDC or API configuration that are set.
 * The whole resulting configuration is validated. Leaving a secret-based auth method drops the
 * secret (`project.application.secret.removed`); entering one needs `_generate_secret`.
 * A patch that changes nothing records nothing and succeeds.
 */
import { invalidArgument } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import { emitter } from '../../kernel/events.js';
import { assertValidOidcConfig } from '../app-config.js';
import {
  APP_NAME_SCOPE,
  appNameKey,
  applicationKind,
  requireLiveApp,
  usesClientSecret,
  type ApiConfig,
  type AppConfig,
  type ApplicationEvent,
  type OidcConfig,
} from '../application.js';
import { orgKind } from '../org.js';
import { projectKind } from '../project.js';

export interface PatchApp {
  readonly appId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly name?: string;
  readonly oidc?: Partial<OidcConfig>;
  readonly api?: Partial<ApiConfig>;
}

export const patchApp: CommandHandler<PatchApp, ResourceDetails> = {
  load: (c) => [ref(applicationKind, c.appId), ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const app = requireLiveApp(loaded, c.orgId, c.appId, c.projectId);
    const owner = orgOwner(c.orgId);
    const emit = emitter(applicationKind, c.appId, owner, ctx.creator);
    const events: DomainEvent[] = [];
    const name = c.name?.trim();
    const renamed = name !== undefined && name !== app.state.name;
    if (renamed) events.push(emit({ type: 'project.application.changed', payload: { name } }));
    const configChange = changedConfig(app.state.config, c);
    if (configChange !== undefined) {
      if (configChange.config.type === 'oidc') assertValidOidcConfig(configChange.config.oidc, 'app.oidc');
      events.push(emit(configChange.event));
      if (app.state.secretDigest !== '' && !usesClientSecret(configChange.config)) events.push(emit({ type: 'project.application.secret.removed', payload: {} }));
    }
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.appId, record: app, owner });
    if (events.length === 0) return { events, reply };
    const newKey = renamed ? appNameKey(c.projectId, name) : undefined;
    const oldKey = appNameKey(c.projectId, app.state.name);
    const claimed = newKey !== undefined && newKey !== oldKey;
    return {
      events,
      claims: claimed ? [{ scope: APP_NAME_SCOPE, value: newKey, holder: c.appId }] : [],
      releases: claimed ? [{ scope: APP_NAME_SCOPE, value: oldKey }] : [],
      reply,
    };
  },
};

/** The changed fields and the resulting configuration; undefined when nothing changes. */
type ConfigChanged = Extract<ApplicationEvent, { type: 'project.application.oidc.config.changed' | 'project.application.api.config.changed' }>;

function changedConfig(current: AppConfig, c: PatchApp): { event: ConfigChanged; config: AppConfig } | undefined {
  if (c.oidc !== undefined && current.type !== 'oidc') throw typeMismatch('app.oidc', 'the application is an API application');
  if (c.api !== undefined && current.type !== 'api') throw typeMismatch('app.api', 'the application is an OIDC application');
  if (current.type === 'oidc' && c.oidc !== undefined) {
    const changes = diff(current.oidc, c.oidc);
    return changes === undefined
      ? undefined
      : { event: { type: 'project.application.oidc.config.changed', payload: changes }, config: { type: 'oidc', oidc: { ...current.oidc, ...changes } } };
  }
  if (current.type === 'api' && c.api !== undefined) {
    const changes = diff(current.api, c.api);
    return changes === undefined
      ? undefined
      : { event: { type: 'project.application.api.config.changed', payload: changes }, config: { type: 'api', api: { ...current.api, ...changes } } };
  }
  return undefined;
}

function diff<T extends object>(current: T, patch: Partial<T>): Partial<T> | undefined {
  const changes: Partial<T> = {};
  let changed = false;
  for (const key of Object.keys(patch) as (keyof T)[]) {
    const value = patch[key];
    if (value === undefined || sameValue(value, current[key])) continue;
    changes[key] = value;
    changed = true;
  }
  return changed ? changes : undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}

function typeMismatch(field: string, message: string) {
  return invalidArgument('app.type_mismatch', message, { violations: [{ field, description: 'does not match the application type' }] });
}
