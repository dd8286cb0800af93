/**
 * The world both grants suites (grants.test.ts, user-grants.test.ts) start from: a node with its
 * seed, two more organizations, and builders that create projects with roles and machine users
 * through the API (each asserts its 201).
 */
import { expect } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup, type SeedSetup } from './seed.fixture.js';

export const PG = '/resources/v3alpha/project_grants';
export const UG = '/resources/v3alpha/user_grants';

export interface GrantsWorld {
  readonly node: TestNode;
  readonly call: ReturnType<typeof api>;
  readonly setup: SeedSetup;
  readonly otherOrg: string;
  readonly thirdOrg: string;
}

/** A started node and two organizations named after `label` ("<label> Other Org", "<label> Third Org"). */
export async function startGrantsWorld(label: string): Promise<GrantsWorld> {
  const node = await startTestNode();
  const call = api(node);
  const setup = await readSetup(node);
  const otherOrg: string = (await call('POST', '/resources/v3alpha/organizations', { name: `${label} Other Org` })).body.details.id;
  const thirdOrg: string = (await call('POST', '/resources/v3alpha/organizations', { name: `${label} Third Org` })).body.details.id;
  return { node, call, setup, otherOrg, thirdOrg };
}

export async function stopGrantsWorld(world: GrantsWorld | undefined): Promise<void> {
  if (world === undefined) return;
  await world.node.stop();
  world.node.cleanup();
}

/** Builders over the world's API caller; `world()` is read at call time (the world starts in beforeAll). */
export function grantBuilders(world: () => GrantsWorld) {
  async function created(method: string, path: string, body: unknown): Promise<string> {
    const response = await world().call(method, path, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.details.id;
  }
  /** A project in the default org with the given roles. */
  async function project(name: string, roles: readonly string[]): Promise<string> {
    const id = await created('POST', '/resources/v3alpha/projects', { name });
    for (const key of roles) await created('POST', `/resources/v3alpha/projects/${id}/roles`, { key, displayName: key });
    return id;
  }
  const machine = (username: string, query = '') => created('POST', `/resources/v3alpha/users${query}`, { machine: { username, name: username } });
  return { created, project, machine };
}
