/**
 * The worker change feed on PostgreSQL (src/cluster/worker-feed.ts): two workers' stores — two
 * connection pools on one schema, each joined to the node's channel as a worker is — and the
 * request reads each keeps for its next request (src/store/postgres-read-cache.ts). A batch one
 * worker commits reaches the other's cache with the rows and claims it wrote: the other worker's
 * next request re-reads just those, the rest stays cached. The control, a third pool on the same
 * schema outside the channel (another node), re-reads everything after the same write.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import type { AppendRequest, RequestReads, StoreAdapter } from '../../actors/index.js';
import { joinWorkerFeed, type WorkerFeed } from '../../src/cluster/worker-feed.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { append, event, expect0 } from '../store/store-suite.js';

const postgresVerdict = await meet(POSTGRES);
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describeIfMet(postgresVerdict, 'worker change feed on PostgreSQL', () => {
  const schema = freshSchemaName();
  const feeds: WorkerFeed[] = [];
  const stores: StoreAdapter[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    for (const feed of feeds) feed.close();
    await dropSchema(schema);
  });
  const link = { index: 0, count: 2, channel: `tessera-test-${randomBytes(6).toString('hex')}`, generation: new SharedArrayBuffer(4) };
  /** A worker's store: its own pool on the schema, joined to the node's channel. */
  const worker = async (index: number) => {
    const feed = joinWorkerFeed({ ...link, index }, silent);
    feeds.push(feed);
    const store = feed.wrap(await openPostgresStore({ url: TEST_DATABASE_URL ?? '', schema, maxConnections: 2 }));
    stores.push(store);
    return { feed, store };
  };
  /** Statements `store` sends for `work`. */
  const counted = async <T>(store: StoreAdapter, work: () => Promise<T>): Promise<{ value: T; statements: number }> => {
    const before = store.statementCount!();
    const value = await work();
    return { value, statements: store.statementCount!() - before };
  };
  const reads = async (view: RequestReads) => [
    await view.getRecord('inst-a', 'orgs', 'o1'),
    await view.getRecord('inst-a', 'orgs', 'o2'),
    await view.findUnique('inst-a', 'org.name', 'acme'),
    await view.findUnique('inst-a', 'org.name', 'beta'),
  ];
  const write = async (store: StoreAdapter, request: AppendRequest) => expect((await store.append(request)).ok).toBe(true);
  const renameO2 = (version: number, name: string, released: string | undefined) =>
    append('inst-a', {
      expectations: [expect0('org', 'o2', version)],
      events: [event('org', 'o2', 'org.changed')],
      claims: [{ scope: 'org.name', value: name, holder: 'o2' }],
      ...(released === undefined ? {} : { releases: [{ scope: 'org.name', value: released }] }),
      project: () => [{ table: 'orgs', id: 'o2', value: { name } }],
    });

  it("moves a worker's request cache past another worker's batch: only the rows and claims it wrote are read again", async () => {
    const a = await worker(0);
    const b = await worker(1);
    // Another node on the schema: hears nothing on the channel (the control).
    const other = await openPostgresStore({ url: TEST_DATABASE_URL ?? '', schema, maxConnections: 2 });
    stores.push(other);
    await write(b.store, append('inst-a', { expectations: [expect0('org', 'o1')], events: [event('org', 'o1', 'org.added')], claims: [{ scope: 'org.name', value: 'acme', holder: 'o1' }], project: () => [{ table: 'orgs', id: 'o1', value: { name: 'acme' } }] }));
    await write(b.store, append('inst-a', { expectations: [expect0('org', 'o2')], events: [event('org', 'o2', 'org.added')], claims: [{ scope: 'org.name', value: 'ajax', holder: 'o2' }], project: () => [{ table: 'orgs', id: 'o2', value: { name: 'ajax' } }] }));
    a.feed.catchUp();
    const before = [{ name: 'acme' }, { name: 'ajax' }, 'o1', undefined];
    // Both readers fill their caches (the position check and four reads), then serve a request from them.
    for (const store of [a.store, other]) {
      expect(await counted(store, () => reads(store.requestReads!('inst-a')))).toEqual({ value: before, statements: 5 });
      expect(await counted(store, () => reads(store.requestReads!('inst-a')))).toEqual({ value: before, statements: 1 });
    }

    // Worker b renames o2 to beta (its row and two claims written).
    await write(b.store, renameO2(1, 'beta', 'ajax'));
    a.feed.catchUp(); // what worker a does before its next request
    const after = [{ name: 'acme' }, { name: 'beta' }, 'o1', 'o2'];
    // Worker a: the check, o2's row and the beta claim; o1 and the acme claim stay cached.
    expect(await counted(a.store, () => reads(a.store.requestReads!('inst-a')))).toEqual({ value: after, statements: 3 });
    expect(await counted(a.store, () => reads(a.store.requestReads!('inst-a')))).toEqual({ value: after, statements: 1 });
    // Control: the other node reads everything again.
    expect(await counted(other, () => reads(other.requestReads!('inst-a')))).toEqual({ value: after, statements: 5 });

    // A write a's cache did not follow (another node's) and then b's next batch: a's cache is not at
    // that batch's start, so its next request reads everything again rather than skip a write.
    await write(other, renameO2(2, 'gamma', 'beta'));
    await write(b.store, append('inst-a', { expectations: [expect0('org', 'o1', 1)], events: [event('org', 'o1', 'org.changed')], project: () => [{ table: 'orgs', id: 'o1', value: { name: 'acme', n: 2 } }] }));
    a.feed.catchUp();
    expect(await counted(a.store, () => reads(a.store.requestReads!('inst-a')))).toEqual({ value: [{ name: 'acme', n: 2 }, { name: 'gamma' }, 'o1', undefined], statements: 5 });
  });
});
