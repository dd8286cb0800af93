/**
 * Registers a public key of a private_key_jwt application. The edge generates the key pair and
 * hands the private key to the caller once; only the public JWK reaches the event.
 */
import { failedPrecondition } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { applicationKind, MAX_APP_KEYS, requireLiveApp, usesKeys, type PublicRsaJwk } from '../application.js';
import { orgKind } from '../org.js';
import { projectKind } from '../project.js';

export interface AddAppKey {
  readonly appId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly keyId: string;
  readonly publicKey: PublicRsaJwk;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

export const addAppKey: CommandHandler<AddAppKey, ResourceDetails> = {
  load: (c) => [ref(applicationKind, c.appId), ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const app = requireLiveApp(loaded, c.orgId, c.appId, c.projectId);
    if (!usesKeys(app.state.config)) throw failedPrecondition('app.keys_not_used', 'only private_key_jwt applications have keys');
    if (c.expiresAt <= ctx.now) throw failedPrecondition('app.key_expiry_in_past', 'the expiration date must be in the future');
    if (app.state.keys.length >= MAX_APP_KEYS) throw failedPrecondition('app.too_many_keys', `an application has at most ${MAX_APP_KEYS} keys`);
    const owner = orgOwner(c.orgId);
    return {
      events: [
        {
          aggregateType: applicationKind.type,
          aggregateId: c.appId,
          type: 'project.application.key.added',
          owner,
          creator: ctx.creator,
          payload: { id: c.keyId, publicKey: c.publicKey, expiresAt: c.expiresAt },
        },
      ],
      reply: (outcome) => detailsAfter(outcome, { id: c.keyId, record: undefined, owner }),
    };
  },
};
