/**
 * The PostgreSQL driver through a lost connection, at the level where it broke: a transaction
 * whose connection dies must fail its queries (CONNECTION_CLOSED) instead of taking the process
 * down, and a connection that died with a write still buffered must connect again afterwards.
 *
 * postgres 3.4.9 did neither (upstream porsager/postgres#1154, #1208, unfixed in any release):
 * a query on a transaction's connection after it closed scheduled a write to the dropped socket
 * and threw `Cannot read properties of null (reading 'write')` from a setImmediate — an uncaught
 * exception that ended the node (seen in test/e2e/postgres-outage.test.ts under load); and a
 * query sent between the socket's error and its close was failed by neither and waited forever.
 * patches/postgres+3.4.9.patch (applied by `npm ci` through patch-package) fixes both; this suite
 * fails without it (an uncaught TypeError; a test timeout). The patch also resets the write timer
 * when a connection closes (else a close with a write pending left it set and the reconnects never
 * flushed their startup message); no test here forces that ordering.
 * Skipped, with the reason, without a reachable TESSERA_TEST_DATABASE_URL.
 */
import postgres from 'postgres';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../e2e/tcp-proxy.fixture.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { TEST_DATABASE_URL } from './postgres-test-db.js';

const verdict = await meet(POSTGRES);

describeIfMet(verdict, 'the PostgreSQL driver through a lost connection', () => {
  let proxy: TcpProxy;
  let closes = 0;
  let sql: postgres.Sql;

  beforeEach(async () => {
    const target = new URL(TEST_DATABASE_URL ?? '');
    proxy = await startTcpProxy(target.hostname, Number(target.port === '' ? 5432 : target.port));
    closes = 0;
    // One connection, so the query after the loss runs on the connection that died; a short
    // connect timeout, so a connection that cannot send its startup message fails fast.
    sql = postgres(proxy.url(TEST_DATABASE_URL ?? ''), { max: 1, connect_timeout: 3, onnotice: () => undefined, onclose: () => (closes += 1) });
  });
  afterEach(async () => {
    proxy.restore();
    await sql.end({ timeout: 1 });
    await proxy.close();
  });

  it('a transaction on a connection that closed fails its next query, and the pool connects again (control: the same transaction with the connection alive)', async () => {
    // Control: nothing cut, the second query answers and the transaction commits.
    const alive = await sql.begin(async (tx) => {
      await tx`select 1`;
      return (await tx`select 2 as n`)[0]?.n as number;
    });
    expect(alive).toBe(2);

    let second: unknown;
    const transaction = sql.begin(async (tx) => {
      await tx`select 1`;
      proxy.cut();
      await until(() => closes > 0); // the driver saw the connection close
      second = await tx`select 2`.then(
        () => 'answered',
        (error: { code?: string }) => error.code,
      );
    });
    await expect(transaction).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    await until(() => second !== undefined);
    expect(second).toBe('CONNECTION_CLOSED');

    proxy.restore();
    expect((await sql`select 3 as n`)[0]?.n).toBe(3);
  });

  it('a query sent while the connection is going down is failed, not left waiting, and the pool answers once the database is back (control: a plain query before the cut)', { timeout: 15_000 }, async () => {
    expect((await sql`select 1 as n`)[0]?.n).toBe(1);
    const settle = (query: Promise<unknown>) => query.then(() => 'answered', (error: { code?: string }) => error.code ?? 'error');
    // From a timer callback, so the reset reaches the driver as a socket error whose close
    // follows later; the second query is sent in between (unpatched, it waited forever).
    const first = await new Promise<string>((resolve) => {
      setTimeout(() => {
        void settle(sql`select 2`).then(resolve);
        proxy.cut();
      }, 0);
    });
    expect(first).not.toBe('answered');
    const second = await settle(sql`select 3`);
    expect(second).not.toBe('answered');

    await until(() => closes > 0);
    proxy.restore();
    expect((await sql`select 4 as n`)[0]?.n).toBe(4);
  });
});

/** Polls `condition` every 10 ms (the test timeout bounds the wait). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
