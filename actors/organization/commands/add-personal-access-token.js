/**
 * Adds a personal access token to a machine user. The edge generates the random token and
 * passes only its SHA-256 digest: the plaintext never reaches an event or the store.
 */
import { failedPrecondition, notFound } from '../../kernel/errors.js';
import { ref } from '../../kernel/command.js';
import { detailsAfter } from '../../kernel/owner.js';
import { PAT_SCOPE, userKind } from '../user.js';
export const addPersonalAccessToken = {
    load: (c) => [ref(userKind, c.userId)],
    decide(loaded, c, ctx) {
        const user = loaded.get(userKind, c.userId).record;
        if (user === undefined)
            throw notFound('user.not_found', 'user not found');
        if (user.state.type !== 'machine')
            throw failedPrecondition('user.not_machine', 'only machine users have personal access tokens');
        if (c.expiresAt <= ctx.now)
            throw failedPrecondition('token.expiry_in_past', 'the expiration date must be in the future');
        const owner = user.meta.owner;
        return {
            events: [
                {
                    aggregateType: userKind.type,
                    aggregateId: c.userId,
                    type: 'user.token.added',
                    owner,
                    creator: ctx.creator,
                    payload: { id: c.tokenId, digest: c.digest, expiresAt: c.expiresAt },
                },
            ],
            claims: [{ scope: PAT_SCOPE, value: c.digest, holder: c.userId }],
            reply: (outcome) => detailsAfter(outcome, { id: c.tokenId, record: undefined, owner }),
        };
    },
};
