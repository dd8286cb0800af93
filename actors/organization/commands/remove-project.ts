/**
 * Removes a project with its applications (their client ids and names are released) and
 * releases the project name. The edge lists the project's applications; one created meanwhile
 * is still unusable, because every read and client lookup requires a live project.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import type { UniqueRelease } from '../../kernel/ports.js';
import { APP_CLIENT_ID_SCOPE, APP_NAME_SCOPE, appNameKey, applicationKind } from '../application.js';
import { orgKind } from '../org.js';
import { PROJECT_NAME_SCOPE, projectKind, projectNameKey, requireLiveProject } from '../project.js';

export interface RemoveProject {
  readonly projectId: string;
  readonly orgId: string;
  /** Ids of the project's applications, removed with it. */
  readonly appIds: readonly string[];
}

export const removeProject: CommandHandler<RemoveProject, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId), ...c.appIds.map((id) => ref(applicationKind, id))],
  decide(loaded, c, ctx) {
    const project = requireLiveProject(loaded, c.orgId, c.projectId);
    const owner = orgOwner(c.orgId);
    const events: DomainEvent[] = [];
    const releases: UniqueRelease[] = [{ scope: PROJECT_NAME_SCOPE, value: projectNameKey(c.orgId, project.state.name) }];
    for (const appId of new Set(c.appIds)) {
      const app = loaded.get(applicationKind, appId).record;
      if (app === undefined || app.state.projectId !== c.projectId) continue;
      events.push({ aggregateType: applicationKind.type, aggregateId: appId, type: 'project.application.removed', owner, creator: ctx.creator, payload: {} });
      releases.push({ scope: APP_CLIENT_ID_SCOPE, value: app.state.clientId }, { scope: APP_NAME_SCOPE, value: appNameKey(c.projectId, app.state.name) });
    }
    events.push({ aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.removed', owner, creator: ctx.creator, payload: {} });
    return { events, releases, reply: (outcome) => detailsAfter(outcome, { id: c.projectId, record: project, owner }) };
  },
};
