/** Changes a project's name and settings; a patch that changes nothing records nothing. */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { orgKind } from '../org.js';
import { PROJECT_NAME_SCOPE, projectKind, projectNameKey, requireLiveProject, type ProjectSettings } from '../project.js';

export interface PatchProject extends Partial<ProjectSettings> {
  readonly projectId: string;
  readonly orgId: string;
  readonly name?: string;
}

const SETTINGS = ['projectRoleAssertion', 'projectRoleCheck', 'hasProjectCheck'] as const;

export const patchProject: CommandHandler<PatchProject, ResourceDetails> = {
  load: (c) => [ref(projectKind, c.projectId), ref(orgKind, c.orgId)],
  decide(loaded, c, ctx) {
    const current = requireLiveProject(loaded, c.orgId, c.projectId);
    const owner = orgOwner(c.orgId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.projectId, record: current, owner });
    const changes: { -readonly [K in keyof ProjectSettings]?: boolean } & { name?: string } = {};
    const name = c.name?.trim();
    if (name !== undefined && name !== current.state.name) changes.name = name;
    for (const setting of SETTINGS) {
      const value = c[setting];
      if (value !== undefined && value !== current.state[setting]) changes[setting] = value;
    }
    if (Object.keys(changes).length === 0) return { events: [], reply };
    const newName = changes.name;
    const renamed = newName !== undefined && projectNameKey(c.orgId, newName) !== projectNameKey(c.orgId, current.state.name);
    return {
      events: [{ aggregateType: projectKind.type, aggregateId: c.projectId, type: 'project.changed', owner, creator: ctx.creator, payload: changes }],
      claims: renamed ? [{ scope: PROJECT_NAME_SCOPE, value: projectNameKey(c.orgId, newName), holder: c.projectId }] : [],
      releases: renamed ? [{ scope: PROJECT_NAME_SCOPE, value: projectNameKey(c.orgId, current.state.name) }] : [],
      reply,
    };
  },
};
