/**
 * Projects: an organization's group of applications and the roles they assert. The name is
 * unique per organization (case-insensitive, claimed under `project.name`); roles are part of
 * the project aggregate, their keys unique within it.
 */
import { projectEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { LoadedSet } from '../kernel/command.js';
import { notFound } from '../kernel/errors.js';
import type { Recorded } from '../kernel/events.js';
import { orgKind } from './org.js';

/** The project settings the OIDC layer applies (reference facts §5.1). */
export interface ProjectSettings {
  /** Always include the client project's roles in userinfo and introspection. */
  readonly projectRoleAssertion: boolean;
  /** Only users with a grant on the project may log in. */
  readonly projectRoleCheck: boolean;
  /** Only users of organizations granted the project may log in. */
  readonly hasProjectCheck: boolean;
}

export interface ProjectRole {
  readonly key: string;
  readonly displayName: string;
  readonly group: string;
  /** Epoch milliseconds / position of the events that added and last changed the role. */
  readonly createdAt: number;
  readonly changedAt: number;
  readonly sequence: number;
}

export interface Project extends ProjectSettings {
  readonly orgId: string;
  readonly name: string;
  readonly state: 'active' | 'inactive';
  readonly roles: readonly ProjectRole[];
}

export const PROJECT_NAME_SCOPE = 'project.name';

/** Role keys: 1..200 of these characters (they appear in scopes and claims). */
export const ROLE_KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Roles a project may hold: bounds the row every role change rewrites. */
export const MAX_PROJECT_ROLES = 1000;

export function projectNameKey(orgId: string, name: string): string {
  return `${orgId}:${name.trim().toLowerCase()}`;
}

type RolePayload = { key: string; displayName: string; group: string };

export type ProjectEvent =
  | { type: 'project.added'; payload: { name: string } & ProjectSettings }
  | { type: 'project.changed'; payload: Partial<{ name: string } & ProjectSettings> }
  | { type: 'project.deactivated'; payload: Record<string, never> }
  | { type: 'project.reactivated'; payload: Record<string, never> }
  | { type: 'project.removed'; payload: Record<string, never> }
  | { type: 'project.role.added'; payload: RolePayload }
  | { type: 'project.role.changed'; payload: Partial<RolePayload> & { key: string } }
  | { type: 'project.role.removed'; payload: { key: string } };

export const projectKind: AggregateKind<Project, ProjectEvent, 'project'> = {
  type: 'project',
  table: 'projects',
  events: projectEvents,
  evolve(state, e) {
    switch (e.type) {
      case 'project.added':
        return { orgId: e.owner.id, ...e.payload, state: 'active', roles: [] };
      case 'project.changed':
        return state && { ...state, ...e.payload };
      case 'project.deactivated':
        return state && { ...state, state: 'inactive' };
      case 'project.reactivated':
        return state && { ...state, state: 'active' };
      case 'project.removed':
        return undefined;
      default:
        return state && evolveRoles(state, e);
    }
  },
};

function evolveRoles(state: Project, e: Recorded<ProjectEvent>): Project {
  const stamp = { changedAt: e.createdAt, sequence: e.position };
  switch (e.type) {
    case 'project.role.added':
      return { ...state, roles: [...state.roles, { ...e.payload, createdAt: e.createdAt, ...stamp }] };
    case 'project.role.changed':
      return { ...state, roles: state.roles.map((r) => (r.key === e.payload.key ? { ...r, ...e.payload, ...stamp } : r)) };
    case 'project.role.removed':
      return { ...state, roles: state.roles.filter((r) => r.key !== e.payload.key) };
    default:
      return state;
  }
}

/**
 * The project of a command: it must exist and belong to the organization, which must exist
 * too (nothing is written into a removed organization). Throws `project.not_found`.
 */
export function requireLiveProject(loaded: LoadedSet, orgId: string, projectId: string): AggregateRecord<Project> {
  const project = loaded.get(projectKind, projectId).record;
  if (project === undefined || !isLiveProject(loaded, orgId, projectId)) throw notFound('project.not_found', 'project not found');
  return project;
}

/** True when the project and its organization exist and belong together. */
export function isLiveProject(loaded: LoadedSet, orgId: string, projectId: string): boolean {
  const project = loaded.get(projectKind, projectId).record;
  return project !== undefined && project.state.orgId === orgId && loaded.get(orgKind, orgId).record !== undefined;
}
