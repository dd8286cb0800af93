/**
 * Seeds principals through the public API with the node's admin token, as an operator would:
 * the first-run plan (instance and default organization), and machine users with a personal
 * access token and chosen memberships, for tests that need a caller with particular roles.
 * Nothing here opens the node's store, so the same suites run on LMDB and PostgreSQL.
 */
import { api, type TestNode } from './harness.js';

export interface SeedSetup {
  readonly instanceId: string;
  readonly orgId: string;
}

type ContextType = 'instance' | 'org' | 'project';

const CONTEXT_TYPES: Readonly<Record<ContextType, string>> = {
  instance: 'MEMBERSHIP_CONTEXT_TYPE_INSTANCE',
  org: 'MEMBERSHIP_CONTEXT_TYPE_ORG',
  project: 'MEMBERSHIP_CONTEXT_TYPE_PROJECT',
};

/** The context fields of a Membership: `instance: true` (the node's own instance), `orgId` or `projectId`. */
function contextOf(m: { readonly contextType: ContextType; readonly contextId: string }): Record<string, unknown> {
  if (m.contextType === 'instance') return { instance: true };
  return m.contextType === 'org' ? { orgId: m.contextId } : { projectId: m.contextId };
}

/** The first-run plan of a node: its instance (from the admin's IAM_OWNER membership) and the default organization. */
export async function readSetup(node: TestNode): Promise<SeedSetup> {
  const call = api(node);
  const org = await call('GET', '/resources/v3alpha/organizations/_instance_default');
  if (org.status !== 200) throw new Error(`default organization: ${org.status} ${JSON.stringify(org.body)}`);
  const memberships = await call('POST', '/resources/v3alpha/memberships/_search', []);
  if (memberships.status !== 200) throw new Error(`memberships: ${memberships.status} ${JSON.stringify(memberships.body)}`);
  const instance = (memberships.body.result as { contextType: string; contextId: string }[]).find((m) => m.contextType === CONTEXT_TYPES.instance);
  if (instance === undefined) throw new Error('the admin holds no instance membership');
  return { instanceId: instance.contextId, orgId: String(org.body.organization.details.id) };
}

/** Adds a machine user in the default organization with a PAT and optional memberships; returns its token. */
export async function seedMachineUser(
  node: TestNode,
  options: { username: string; memberships?: readonly { contextType: ContextType; contextId: string; roles: readonly string[] }[] },
): Promise<{ userId: string; token: string }> {
  const call = api(node);
  const created = await call('POST', '/resources/v3alpha/users', { machine: { username: options.username, name: options.username } });
  if (created.status !== 201) throw new Error(`machine user ${options.username}: ${created.status} ${JSON.stringify(created.body)}`);
  const userId = String(created.body.details.id);
  for (const m of options.memberships ?? []) {
    const added = await call('POST', '/resources/v3alpha/memberships', { ...contextOf(m), userId, roles: m.roles });
    if (added.status !== 201) throw new Error(`membership of ${options.username} in ${m.contextType} ${m.contextId}: ${added.status} ${JSON.stringify(added.body)}`);
  }
  const pat = await call('POST', `/resources/v3alpha/users/${userId}/tokens`, {});
  if (pat.status !== 201) throw new Error(`token of ${options.username}: ${pat.status} ${JSON.stringify(pat.body)}`);
  return { userId, token: String(pat.body.token) };
}
