/**
 * The permission matrix (docs/permissions.md): for each default role, one representative call
 * it may make and one it may not (403). Callers are machine users holding exactly that role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup, seedMachineUser, type SeedSetup } from './seed.fixture.js';

const R = '/resources/v3alpha';
let node: TestNode;
let setup: SeedSetup;
let projectId: string;
let otherOrgId: string;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } });
  setup = await readSetup(node);
  const admin = api(node);
  projectId = (await admin('POST', `${R}/projects`, { name: 'Matrix Project' })).body.details.id;
  otherOrgId = (await admin('POST', `${R}/organizations`, { name: 'Matrix Other' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

type Call = [method: string, path: () => string, body?: unknown];
type Context = 'instance' | 'org' | 'project';

const rows: [role: string, context: Context, allowed: Call, denied: Call][] = [
  ['IAM_OWNER', 'instance', ['POST', () => `${R}/targets`, { name: 'm-t', restWebhook: { url: 'https://x.example/h' }, timeout: '5s' }], ['POST', () => `${R}/instances/_search`, []]],
  ['IAM_OWNER_VIEWER', 'instance', ['POST', () => `${R}/targets/_search`, []], ['POST', () => `${R}/organizations`, { name: 'viewer made' }]],
  ['IAM_ORG_MANAGER', 'instance', ['POST', () => `${R}/organizations`, { name: 'org manager made' }], ['POST', () => `${R}/targets/_search`, []]],
  ['IAM_USER_MANAGER', 'instance', ['POST', () => `${R}/users`, { machine: { username: 'um-made', name: 'x' } }], ['POST', () => `${R}/organizations`, { name: 'user manager made' }]],
  ['ORG_OWNER', 'org', ['POST', () => `${R}/projects?ctx.orgId=${setup.orgId}`, { name: 'owner made' }], ['GET', () => `${R}/organizations/${otherOrgId}`]],
  ['ORG_OWNER_VIEWER', 'org', ['GET', () => `${R}/organizations/${setup.orgId}`], ['PATCH', () => `${R}/organizations/${setup.orgId}`, { name: 'renamed' }]],
  ['ORG_USER_MANAGER', 'org', ['POST', () => `${R}/users?ctx.orgId=${setup.orgId}`, { machine: { username: 'oum-made', name: 'x' } }], ['POST', () => `${R}/projects?ctx.orgId=${setup.orgId}`, { name: 'oum project' }]],
  ['ORG_SETTINGS_MANAGER', 'org', ['PATCH', () => `${R}/organizations/${setup.orgId}`, {}], ['POST', () => `${R}/users?ctx.orgId=${setup.orgId}`, { machine: { username: 'osm-made', name: 'x' } }]],
  ['PROJECT_OWNER', 'project', ['PATCH', () => `${R}/projects/${projectId}`, { name: 'Matrix Project' }], ['POST', () => `${R}/organizations`, { name: 'po made' }]],
  ['PROJECT_OWNER_VIEWER', 'project', ['GET', () => `${R}/projects/${projectId}`], ['DELETE', () => `${R}/projects/${projectId}`]],
];

describe('permission matrix', () => {
  it.each(rows)('%s (%s): one allowed call, one denied call', async (role, context, allowed, denied) => {
    const contextId = context === 'instance' ? setup.instanceId : context === 'org' ? setup.orgId : projectId;
    const username = `matrix-${role.toLowerCase()}`;
    // Project memberships go through the memberships API (it resolves the project's org).
    const member = await seedMachineUser(node, {
      username,
      memberships: context === 'project' ? [] : [{ contextType: context, contextId, roles: [role] }],
    });
    if (context === 'project') {
      const granted = await api(node)('POST', `${R}/memberships`, { projectId, userId: member.userId, roles: [role] });
      expect(granted.status, JSON.stringify(granted.body)).toBe(201);
    }
    const call = api(node, member.token);
    const ok = await call(allowed[0], allowed[1](), allowed[2]);
    expect(ok.status, `${role} allowed: ${JSON.stringify(ok.body)}`).toBeLessThan(300);
    const no = await call(denied[0], denied[1](), denied[2]);
    expect(no.status, `${role} denied: ${JSON.stringify(no.body)}`).toBe(403);
  });
});
