/**
 * Durability: kill -9 a node while clients write; after a restart every write that was
 * answered 2xx is there, and the store accepts writes again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';

/** Two node starts, 200 acknowledged writes and a full search: about 25 s on a loaded machine with the node on PostgreSQL. */
const SLOW_TEST_MS = 90_000;

describe('kill -9 under write load', () => {
  let node: TestNode | undefined;
  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
  });

  it('loses no acknowledged write', async () => {
    const first = await startTestNode();
    const call = api(first);
    const acknowledged: string[] = [];
    let stop = false;
    const writers = Array.from({ length: 8 }, (_, w) =>
      (async () => {
        for (let i = 0; !stop && i < 5000; i += 1) {
          try {
            const r = await call('POST', '/resources/v3alpha/organizations', { name: `crash-${w}-${i}` });
            if (r.status === 201) acknowledged.push(r.body.details.id);
          } catch {
            return; // connection refused/reset once the node is gone
          }
        }
      })(),
    );
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 10));
    await first.kill();
    stop = true;
    await Promise.all(writers);

    node = await startTestNode({ dataDir: first.dataDir });
    const found = new Set<string>();
    const again = api(node);
    for (let offset = 0; ; offset += 1000) {
      const page = await again('POST', `/resources/v3alpha/organizations/_search?query.limit=1000&query.offset=${offset}`, [
        { name: { name: 'crash-', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } },
      ]);
      for (const o of page.body.result ?? []) found.add(o.details.id);
      if (page.body.details.endOfList) break;
    }
    const missing = acknowledged.filter((id) => !found.has(id));
    expect(missing).toEqual([]);
    expect((await again('POST', '/resources/v3alpha/organizations', { name: 'after-crash' })).status).toBe(201);
  }, SLOW_TEST_MS);
});
