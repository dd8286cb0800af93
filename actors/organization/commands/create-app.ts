/**
 * Creates an application in a project. The client id is generated here (`<app id>@<project
 * slug>`) and claimed instance-wide; the edge passes the digest of a freshly generated secret,
 * stored only when the auth method uses one (the reply says so, and the edge shows it once).
 */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { emitter } from '../../kernel/events.js';
import { assertValidOidcConfig } from '../app-config.js';
import {
  APP_CLIENT_ID_SCOPE,
  APP_NAME_SCOPE,
  appNameKey,
  applicationKind,
  generatedClientId,
  usesClientSecret,
  type AppConfig,
} from '../application.js';
import { orgKind } from '../org.js';
import { projectKind, requireLiveProject } from '../project.js';

export interface CreateApp {
  readonly appId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly name: string;
  readonly config: AppConfig;
  /** SHA-256 digest of a secret generated at the edge; kept only if the auth method uses a secret. */
  readonly secretDigest: string;
}

export interface CreatedApp {
  readonly details: ResourceDetails;
  readonly clientId: string;
  /** True when the secret was stored: the edge returns it, this once. */
  readonly secretStored: boolean;
}

export const createApp: CommandHandler<CreateApp, CreatedApp> = {
  load: (c) => [ref(applicationKind, c.appId), ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const project = requireLiveProject(loaded, c.orgId, c.projectId);
    if (loaded.get(applicationKind, c.appId).version > 0) throw alreadyExists('app.exists', 'the application already exists');
    if (c.config.type === 'oidc') assertValidOidcConfig(c.config.oidc, 'app.oidc');
    const owner = orgOwner(c.orgId);
    const name = c.name.trim();
    const clientId = generatedClientId(c.appId, project.state.name);
    const secretStored = usesClientSecret(c.config) && c.secretDigest !== '';
    const emit = emitter(applicationKind, c.appId, owner, ctx.creator);
    return {
      events: [
        emit({ type: 'project.application.added', payload: { projectId: c.projectId, name, clientId, config: c.config } }),
        ...(secretStored ? [emit({ type: 'project.application.secret.changed', payload: { digest: c.secretDigest } })] : []),
      ],
      claims: [
        { scope: APP_CLIENT_ID_SCOPE, value: clientId, holder: c.appId },
        { scope: APP_NAME_SCOPE, value: appNameKey(c.projectId, name), holder: c.appId },
      ],
      reply: (outcome) => ({ details: detailsAfter(outcome, { id: c.appId, record: undefined, owner }), clientId, secretStored }),
    };
  },
};
