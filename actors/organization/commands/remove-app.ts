/** Removes an application and releases its client id and name. */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { APP_CLIENT_ID_SCOPE, APP_NAME_SCOPE, appNameKey, applicationKind, requireLiveApp } from '../application.js';
import { orgKind } from '../org.js';
import { projectKind } from '../project.js';

export interface RemoveApp {
  readonly appId: string;
  readonly orgId: string;
  readonly projectId: string;
}

export const removeApp: CommandHandler<RemoveApp, ResourceDetails> = {
  load: (c) => [ref(applicationKind, c.appId), ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const app = requireLiveApp(loaded, c.orgId, c.appId, c.projectId);
    const owner = orgOwner(c.orgId);
    return {
      events: [{ aggregateType: applicationKind.type, aggregateId: c.appId, type: 'project.application.removed', owner, creator: ctx.creator, payload: {} }],
      releases: [
        { scope: APP_CLIENT_ID_SCOPE, value: app.state.clientId },
        { scope: APP_NAME_SCOPE, value: appNameKey(c.projectId, app.state.name) },
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.appId, record: app, owner }),
    };
  },
};
