/**
 * Replaces an application's client secret (`_generate_secret`): the edge generates the secret
 * and passes only its digest; the old secret stops verifying at once. Only for apps whose auth
 * method uses a secret (client_secret_basic / client_secret_post).
 */
import { failedPrecondition } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { applicationKind, requireLiveApp, usesClientSecret } from '../application.js';
import { orgKind } from '../org.js';
import { projectKind } from '../project.js';

export interface SetAppSecret {
  readonly appId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly digest: string;
}

export const setAppSecret: CommandHandler<SetAppSecret, ResourceDetails> = {
  load: (c) => [ref(applicationKind, c.appId), ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const app = requireLiveApp(loaded, c.orgId, c.appId, c.projectId);
    if (!usesClientSecret(app.state.config)) {
      throw failedPrecondition('app.secret_not_used', 'the auth method of the application uses no client secret');
    }
    const owner = orgOwner(c.orgId);
    return {
      events: [
        {
          aggregateType: applicationKind.type,
          aggregateId: c.appId,
          type: 'project.application.secret.changed',
          owner,
          creator: ctx.creator,
          payload: { digest: c.digest },
        },
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.appId, record: app, owner }),
    };
  },
};
