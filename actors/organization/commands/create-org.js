/** Creates an organization; its name and generated primary domain are claimed instance-wide. */
import { alreadyExists } from '../../kernel/errors.js';
import { ref } from '../../kernel/command.js';
import { detailsAfter, orgOwner } from '../../kernel/owner.js';
import { generatedOrgDomain, ORG_DOMAIN_SCOPE, ORG_NAME_SCOPE, orgKind, orgNameKey } from '../org.js';
export const createOrg = {
    load: (c) => [ref(orgKind, c.orgId)],
    decide(loaded, c, ctx) {
        if (loaded.get(orgKind, c.orgId).version > 0)
            throw alreadyExists('org.exists', 'the organization already exists');
        const name = c.name.trim();
        const primaryDomain = generatedOrgDomain(name, c.instanceDomain);
        const owner = orgOwner(c.orgId);
        return {
            events: [
                { aggregateType: orgKind.type, aggregateId: c.orgId, type: 'org.added', owner, creator: ctx.creator, payload: { name, primaryDomain } },
            ],
            claims: [
                { scope: ORG_NAME_SCOPE, value: orgNameKey(name), holder: c.orgId },
                { scope: ORG_DOMAIN_SCOPE, value: primaryDomain, holder: c.orgId },
            ],
            reply: (outcome) => detailsAfter(outcome, { id: c.orgId, record: undefined, owner }),
        };
    },
};
