/**
 * The PostgreSQL change feed against a real server: another adapter's appends arrive with
 * their streams (own appends are not reported), a payload too large for NOTIFY falls back to
 * reading the range, lost notifications are caught up by position (a gap, and a dropped
 * LISTEN connection), and `ttl.claim` lets exactly one holder win. Skipped, with the reason,
 * when TESSERA_TEST_DATABASE_URL is unset or the server does not answer.
 */
import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createManualClock, type StoreAdapter, type StoreChange } from '../../actors/index.js';
import { appendToPostgres } from '../../src/store/postgres-append.js';
import { changeChannel, createPostgresChangeFeed, type PostgresChangeFeed } from '../../src/store/postgres-change-feed.js';
import { quoteIdent } from '../../src/store/postgres-migrations.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from './postgres-test-db.js';
import { append, event, expect0 } from './store-suite.js';

const postgresVerdict = await meet(POSTGRES);
const url = TEST_DATABASE_URL ?? '';
const DEADLINE_MS = 15_000;

/** Polls until `check` holds or the deadline passes (then the caller's expect reports it). */
async function eventually(check: () => boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

const user = (id: string, version = 0, count = 1) =>
  append('inst-1', { expectations: [expect0('user', id, version)], events: Array.from({ length: count }, () => event('user', id, 'user.changed')) });

describeIfMet(postgresVerdict, 'postgres change feed', () => {
  const schema = freshSchemaName();
  const closers: (() => Promise<unknown>)[] = [];
  const admin = postgres(url, { max: 2, onnotice: () => undefined });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    await admin.end({ timeout: 5 });
    await dropSchema(schema);
  });

  const open = async (): Promise<StoreAdapter> => {
    const store = await openPostgresStore({ url, schema, maxConnections: 4 });
    closers.push(() => store.close());
    return store;
  };
  const collect = async (store: StoreAdapter) => {
    const seen: StoreChange[] = [];
    await store.changes!.subscribe((change) => seen.push(change)); // the PostgreSQL store has a feed
    return seen;
  };

  it("reports another adapter's appends with their streams and commit time, and not its own", async () => {
    const [writer, reader] = [await open(), await open()];
    const [byWriter, byReader] = [await collect(writer), await collect(reader)];
    const base = (await writer.projectionState('inst-1')).position;
    expect((await writer.append(user('u1', 0, 2))).ok).toBe(true);
    await eventually(() => byReader.length > 0);
    expect(byReader).toEqual([{ instanceId: 'inst-1', fromPosition: base + 1, toPosition: base + 2, streams: [{ aggregateType: 'user', aggregateId: 'u1', version: 2 }], committedAt: expect.any(Number) }]);

    // The reader writes too: once the writer hears that, it has also processed its own notice.
    expect((await reader.append(user('u2'))).ok).toBe(true);
    await eventually(() => byWriter.length > 0);
    expect(byWriter).toEqual([{ instanceId: 'inst-1', fromPosition: base + 3, toPosition: base + 3, streams: [{ aggregateType: 'user', aggregateId: 'u2', version: 1 }], committedAt: expect.any(Number) }]);
    expect(byReader).toHaveLength(1);
  });

  it('reads the range when the streams do not fit into a notification', async () => {
    const [writer, reader] = [await open(), await open()];
    const seen = await collect(reader);
    const ids = Array.from({ length: 150 }, (_, i) => `wide-${String(i).padStart(3, '0')}-${'x'.repeat(60)}`);
    const wide = append('inst-2', { expectations: ids.map((id) => expect0('user', id)), events: ids.map((id) => event('user', id, 'user.added')) });
    expect((await writer.append(wide)).ok).toBe(true);
    await eventually(() => seen.length > 0);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.streams?.map((s) => s.aggregateId).sort()).toEqual(ids);
  });

  describe('catching up', () => {
    const sql = postgres(url, { max: 2, onnotice: () => undefined, connection: { search_path: quoteIdent(schema) } });
    afterAll(() => sql.end({ timeout: 5 }));
    /** A feed of its own (no periodic re-check), so only the path under test can report a change. */
    const openFeed = async (store: StoreAdapter) => {
      const feed: PostgresChangeFeed = createPostgresChangeFeed({
        sql,
        notice: { channel: changeChannel(schema), nodeId: 'test-reader' },
        readEvents: (...args) => store.readEvents(...args),
        recheckMs: 3_600_000,
      });
      closers.push(() => feed.close());
      const seen: StoreChange[] = [];
      await feed.subscribe((change) => seen.push(change));
      return seen;
    };
    /** Appends without a notification, as if it had been sent while nobody listened. */
    const silently = (request: ReturnType<typeof user>) => appendToPostgres(sql, request);

    it('fills a gap in the positions before reporting the next notification', async () => {
      const writer = await open();
      const seen = await openFeed(writer);
      const base = (await writer.projectionState('inst-1')).position;
      expect((await silently(append('inst-1', { expectations: [expect0('user', 'gap-1')], events: [event('user', 'gap-1', 'user.added')] }))).ok).toBe(true);
      expect((await writer.append(append('inst-1', { expectations: [expect0('user', 'gap-2')], events: [event('user', 'gap-2', 'user.added')] }))).ok).toBe(true);
      await eventually(() => seen.length >= 2);
      expect(seen).toEqual([
        { instanceId: 'inst-1', fromPosition: base + 1, toPosition: base + 1, streams: [{ aggregateType: 'user', aggregateId: 'gap-1', version: 1 }], committedAt: expect.any(Number) },
        { instanceId: 'inst-1', fromPosition: base + 2, toPosition: base + 2, streams: [{ aggregateType: 'user', aggregateId: 'gap-2', version: 1 }], committedAt: expect.any(Number) },
      ]);
    });

    it('catches up by position after its LISTEN connection was dropped', async () => {
      const writer = await open();
      const seen = await openFeed(writer);
      const base = (await writer.projectionState('inst-3')).position;
      expect((await silently(append('inst-3', { expectations: [expect0('user', 'missed')], events: [event('user', 'missed', 'user.added')] }))).ok).toBe(true);
      const killed = await admin.unsafe<{ ok: boolean }[]>('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = $1', [`listen "${changeChannel(schema)}"`]);
      expect(killed.map((k) => k.ok)).toEqual([true]);
      await eventually(() => seen.length > 0);
      expect(seen).toEqual([{ instanceId: 'inst-3', fromPosition: base + 1, toPosition: base + 1, streams: [{ aggregateType: 'user', aggregateId: 'missed', version: 1 }], committedAt: expect.any(Number) }]);
    });
  });

  it('lets one holder claim a TTL row until it expires; the holder renews it', async () => {
    const clock = createManualClock(1_000);
    const store = await openPostgresStore({ url, schema, maxConnections: 2, clock });
    closers.push(() => store.close());
    const claim = (holder: string, expiresAt: number) => store.ttl.claim!('inst-1', 'lease', 'k', holder, expiresAt); // PostgreSQL has claim
    const raced = await Promise.all(['n1', 'n2', 'n3', 'n4'].map((h) => claim(h, 5_000)));
    expect(raced.filter(Boolean)).toHaveLength(1);
    const winner = ['n1', 'n2', 'n3', 'n4'][raced.indexOf(true)] ?? '';
    expect(await claim(winner, 6_000)).toBe(true);
    expect(await claim('other', 6_000)).toBe(false);
    clock.set(6_000);
    expect(await claim('other', 9_000)).toBe(true);
    expect(await store.ttl.get('inst-1', 'lease', 'k')).toBe('other');
  });
});
