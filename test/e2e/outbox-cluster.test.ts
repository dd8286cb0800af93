/**
 * The outbox on two nodes sharing one PostgreSQL database (#14): password reset mails queued on
 * both nodes, while the SMTP server first refuses them, are each delivered exactly once — one
 * node at a time holds the instance's outbox lease and every message is read again under it.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { api, startTestNode, waitFor, type TestNode } from './harness.js';
import { createHuman } from './oidc-code-flow.fixture.js';

const postgresVerdict = await meet(POSTGRES);


describeIfMet(postgresVerdict, 'the outbox on two nodes of one PostgreSQL database', () => {
  const schema = freshSchemaName();
  const state = { refusing: true, attempts: 0, delivered: [] as string[] };
  let server: SMTPServer;
  let a: TestNode;
  let b: TestNode;

  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        state.attempts += 1;
        if (state.refusing) return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        return callback();
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          state.delivered.push(...session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env = {
      TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '',
      TESSERA_DATABASE_SCHEMA: schema,
      TESSERA_MASTERKEY: 'e'.repeat(64),
      TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      TESSERA_SMTP_HOST: '127.0.0.1',
      TESSERA_SMTP_PORT: String((server.server.address() as AddressInfo).port),
      TESSERA_SMTP_TLS: 'none',
      TESSERA_SMTP_FROM: 'noreply@tessera.example',
      TESSERA_OUTBOX_POLL_MS: '100',
      TESSERA_OUTBOX_BACKOFF_MS: '200',
    };
    a = await startTestNode({ env });
    b = await startTestNode({ env, dataDir: a.dataDir });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    a?.cleanup();
    await dropSchema(schema);
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  });

  it('delivers mails queued on both nodes exactly once each', async () => {
    const users = ['cl-1', 'cl-2', 'cl-3', 'cl-4'];
    const ids = [];
    for (const name of users) ids.push(await createHuman(a, name));
    // Two requests on each node, while the server refuses: every message fails at least once.
    for (const [i, id] of ids.entries()) {
      const node = i % 2 === 0 ? a : b;
      expect((await api(node, a.adminToken)('POST', `/resources/v3alpha/users/${id}/password/_reset`, {})).status).toBe(200);
    }
    await waitFor('a refused attempt of every message', () => (state.attempts >= users.length ? true : undefined), 30_000);
    state.refusing = false;
    await waitFor('every mail', () => (users.every((u) => state.delivered.includes(`${u}@example.com`)) ? true : undefined), 30_000);
    const delivered = async (node: TestNode) => Number(/^tessera_outbox_deliveries_total\{kind="mail",result="delivered"\} (\d+)/m.exec(await (await fetch(`${node.baseUrl}/metrics`)).text())?.[1] ?? 0);
    await waitFor('both nodes counted', async () => ((await delivered(a)) + (await delivered(b)) === users.length ? true : undefined), 30_000);
    // A few more poll rounds of both nodes send nothing again.
    await new Promise((r) => setTimeout(r, 1_000));
    expect([...state.delivered].sort()).toEqual(users.map((u) => `${u}@example.com`));
    expect((await delivered(a)) + (await delivered(b))).toBe(users.length);
  });
});
