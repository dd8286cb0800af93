/**
 * TESSERA_BENCH_WITHOUT_INDEXES (benchmarks only, docs/configuration.md): the node writes
 * without its search indexes and refuses every search (501 `store.indexes_off`) instead of
 * answering an empty page; the next start without the switch rebuilds the indexes, so the rows
 * written meanwhile are found.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';

const ORGS = '/resources/v3alpha/organizations';
const USERS = '/resources/v3alpha/users';
const byName = (name: string) => [{ name: { name, method: 'TEXT_FILTER_METHOD_EQUALS' } }];
const idOf = (body: Record<string, any>): string | undefined => body.details?.[0]?.id;

describe('a node started with TESSERA_BENCH_WITHOUT_INDEXES', () => {
  const nodes: TestNode[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    nodes.at(-1)?.cleanup();
  });

  it('creates, refuses searches, and after a restart without the switch finds what it created', { timeout: 60_000 }, async () => {
    const without = await startTestNode({ env: { TESSERA_BENCH_WITHOUT_INDEXES: 'true' } });
    nodes.push(without);
    const call = api(without);
    const created = await call('POST', ORGS, { name: 'Written Without Indexes' });
    expect(created.status).toBe(201);
    const orgId: string = created.body.details.id;
    const user = await call('POST', USERS, { human: { username: 'no.index', profile: { givenName: 'No', familyName: 'Index' }, email: { address: 'no.index@example.com' } } });
    expect(user.status).toBe(201);
    // Rows are read as always (positive control for the refusals below).
    expect((await call('GET', `${ORGS}/${orgId}`)).status).toBe(200);
    for (const path of [`${ORGS}/_search`, `${USERS}/_search`]) {
      const refused = await call('POST', path, []);
      expect(refused.status).toBe(501);
      expect(idOf(refused.body)).toBe('store.indexes_off');
    }
    await without.stop();

    const restarted = await startTestNode({ dataDir: without.dataDir });
    nodes.push(restarted);
    const again = api(restarted);
    const orgs = await again('POST', `${ORGS}/_search`, byName('Written Without Indexes'));
    expect(orgs.status).toBe(200);
    expect(orgs.body.result.map((o: any) => o.details.id)).toEqual([orgId]);
    const users = await again('POST', `${USERS}/_search`, [{ email: { address: 'no.index@example.com', method: 'TEXT_FILTER_METHOD_EQUALS' } }]);
    expect(users.body.result.map((u: any) => u.details.id)).toEqual([user.body.details.id]);
  });
});
