/** Removes a key of an application; assertions signed with it stop verifying at once. */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { applicationKind, requireLiveApp } from '../application.js';
import { orgKind } from '../org.js';
import { projectKind } from '../project.js';

export interface RemoveAppKey {
  readonly appId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly keyId: string;
}

export const removeAppKey: CommandHandler<RemoveAppKey, ResourceDetails> = {
  load: (c) => [ref(applicationKind, c.appId), ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const app = requireLiveApp(loaded, c.orgId, c.appId, c.projectId);
    if (!app.state.keys.some((k) => k.id === c.keyId)) throw notFound('app.key_not_found', 'application key not found');
    const owner = orgOwner(c.orgId);
    return {
      events: [
        {
          aggregateType: applicationKind.type,
          aggregateId: c.appId,
          type: 'project.application.key.removed',
          owner,
          creator: ctx.creator,
          payload: { id: c.keyId },
        },
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.keyId, record: undefined, owner }),
    };
  },
};
