/**
 * Gives a user roles in a context; (context, user) is unique, so adding twice is a conflict.
 * The context must exist: the request's instance, an existing organization, or an existing
 * project of an existing organization (`ownerOrgId`, the project's organization).
 */
import { alreadyExists, invalidArgument, notFound, ProgrammerError } from '../../kernel/errors.js';
import { ref, type AggregateRef, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../../organization/org.js';
import { projectKind } from '../../organization/project.js';
import { userKind } from '../../organization/user.js';
import { assertRolesFit, membershipEventType, membershipId, membershipKind, type MembershipContext } from '../membership.js';

export interface AddMembership {
  readonly contextType: MembershipContext;
  readonly contextId: string;
  readonly userId: string;
  readonly roles: readonly string[];
  /** The organization owning the project (project context only). */
  readonly ownerOrgId?: string;
}

/** The organization a membership belongs to ('' for instance and system memberships). */
function owningOrgId(c: AddMembership): string {
  if (c.contextType === 'org') return c.contextId;
  if (c.contextType !== 'project') return '';
  if (c.ownerOrgId === undefined || c.ownerOrgId === '') throw new ProgrammerError('a project membership needs ownerOrgId');
  return c.ownerOrgId;
}

export const addMembership: CommandHandler<AddMembership, ResourceDetails> = {
  load(c) {
    const refs: AggregateRef[] = [ref(membershipKind, membershipId(c.contextType, c.contextId, c.userId)), ref(userKind, c.userId)];
    const orgId = owningOrgId(c);
    if (orgId !== '') refs.push(ref(orgKind, orgId));
    if (c.contextType === 'project') refs.push(ref(projectKind, c.contextId));
    return refs;
  },
  decide(loaded, c, ctx) {
    const id = membershipId(c.contextType, c.contextId, c.userId);
    const orgId = owningOrgId(c);
    if (c.contextType === 'instance' && c.contextId !== ctx.instanceId) {
      throw invalidArgument('membership.context_invalid', 'an instance membership names its own instance');
    }
    if (orgId !== '' && loaded.get(orgKind, orgId).record === undefined) throw notFound('org.not_found', 'organization not found');
    if (c.contextType === 'project' && loaded.get(projectKind, c.contextId).record?.state.orgId !== orgId) {
      throw notFound('project.not_found', 'project not found');
    }
    if (loaded.get(userKind, c.userId).record === undefined) throw notFound('user.not_found', 'user not found');
    if (loaded.get(membershipKind, id).record !== undefined) throw alreadyExists('membership.exists', 'the user is already a member in this context');
    assertRolesFit(c.contextType, c.roles);
    const owner = orgId === '' ? instanceOwner(ctx.instanceId) : orgOwner(orgId);
    return {
      events: [
        {
          aggregateType: membershipKind.type,
          aggregateId: id,
          type: membershipEventType(c.contextType, 'added'),
          owner,
          creator: ctx.creator,
          payload: { contextType: c.contextType, contextId: c.contextId, userId: c.userId, roles: [...c.roles] },
        },
      ],
      reply: (outcome) => detailsAfter(outcome, { id, record: undefined, owner }),
    };
  },
};
