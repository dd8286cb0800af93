/**
 * Moving a node between stores with the real CLI (docs/operations/postgres.md, "Moving between
 * stores"): a node on LMDB gets an organization, a human user with a password, an OIDC app and
 * an issued refresh token; after `tessera copy-store` a node on PostgreSQL (same data directory,
 * so the same master key and admin token) serves the same data, the refresh token still works
 * and ID tokens are still signed with the copied (sealed) keys; then the way back into a new
 * LMDB data directory. Skipped, with the reason, without a reachable TESSERA_TEST_DATABASE_URL.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { api, runCli, startTestNode, type TestNode } from './harness.js';
import { basic, createApp, createMachineClient, createProject, postForm, type AppClient } from './oidc.fixture.js';

const postgresVerdict = await meet(POSTGRES);
const title = 'moving a node between LMDB and PostgreSQL with tessera copy-store';
const TOKEN = '/oauth/v2/token';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const PASSWORD = 'Secr3tPassword';

describeIfMet(postgresVerdict, title, () => {
  const url = TEST_DATABASE_URL ?? '';
  const schema = freshSchemaName();
  const pg = { TESSERA_DATABASE_URL: url, TESSERA_DATABASE_SCHEMA: schema };
  const nodes: TestNode[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await dropSchema(schema);
  });
  const start = async (options: Parameters<typeof startTestNode>[0] = {}) => {
    const node = await startTestNode(options);
    nodes.push(node);
    if (options.dataDir === undefined) dirs.push(node.dataDir);
    return node;
  };

  it('copies a used LMDB store to PostgreSQL and back; both copies serve the same data and tokens', { timeout: 120_000 }, async () => {
    // 1. A node on LMDB, used: org, human user with password, OIDC app, refresh token.
    const lmdbNode = await start();
    const call = api(lmdbNode);
    const org = await call('POST', '/resources/v3alpha/organizations', { name: 'Moving Corp' });
    expect(org.status).toBe(201);
    const orgId = String(org.body.details.id);
    const human = await call('POST', '/resources/v3alpha/users', {
      human: { username: 'mover', profile: { givenName: 'Mo', familyName: 'Ver' }, email: { address: 'mover@example.com' }, password: PASSWORD },
    });
    expect(human.status).toBe(201);
    expect((await call('PATCH', '/settings/v3alpha/features', { token_exchange: true })).status).toBe(200);
    const bot = await createMachineClient(lmdbNode, 'move-bot', 'BEARER');
    const projectId = await createProject(lmdbNode, 'Move Project');
    const app: AppClient = await createApp(lmdbNode, projectId, 'Mover App', {
      oidc: {
        appType: 'OIDC_APP_TYPE_WEB',
        redirectUris: ['https://move.example.com/cb'],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN', 'OIDC_GRANT_TYPE_TOKEN_EXCHANGE'],
        authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      },
    });
    const subject = await postForm(lmdbNode, TOKEN, { grant_type: 'client_credentials', scope: 'openid profile offline_access' }, basic(bot.clientId, bot.secret));
    const exchanged = await postForm(lmdbNode, TOKEN, { grant_type: EXCHANGE, subject_token: String(subject.body.access_token), subject_token_type: ACCESS_TOKEN_TYPE }, basic(app.clientId, app.secret!));
    expect(exchanged.status).toBe(200);
    const refreshToken = String(exchanged.body.refresh_token);
    expect(refreshToken).not.toBe('undefined');
    expect(await lmdbNode.stop()).toBe(0);

    // 2. Copy LMDB → PostgreSQL with the real CLI.
    const toPg = await runCli(['copy-store', '--from', lmdbNode.dataDir, '--to', url, '--to-schema', schema], {});
    expect({ code: toPg.code, stderr: toPg.stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining(`→ PostgreSQL`) });
    expect(toPg.stdout).toMatch(/^copied [\d,]+ events, [\d,]+ stream heads, [\d,]+ position counters?, [\d,]+ records, [\d,]+ unique claims, [1-9][\d,]* TTL rows, [1-9][\d,]* meta entries\n$/);
    const again = await runCli(['copy-store', '--from', lmdbNode.dataDir, '--to', url, '--to-schema', schema], {});
    expect({ code: again.code, stderr: again.stderr }).toMatchObject({ code: 1, stderr: expect.stringContaining('is not empty') });

    // 3. A node on PostgreSQL, same data directory (master key, admin token): same data.
    const pgNode = await start({ dataDir: lmdbNode.dataDir, env: pg });
    await expectSameData(pgNode, { orgId, orgSequence: org.body.details.sequence });
    const rotated = await refresh(pgNode, app, refreshToken);
    expect((await api(pgNode)('POST', '/resources/v3alpha/organizations', { name: 'Made on PostgreSQL' })).status).toBe(201);
    expect(await pgNode.stop()).toBe(0);

    // 4. And back: PostgreSQL → a new LMDB data directory (master key and admin token copied by the operator).
    const backDir = mkdtempSync(join(tmpdir(), 'tessera-e2e-back-'));
    dirs.push(backDir);
    const back = await runCli(['copy-store', '--from', url, '--from-schema', schema, '--to', backDir], {});
    expect({ code: back.code, stderr: back.stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining('no masterkey file') });
    for (const file of ['masterkey', 'admin.pat']) copyFileSync(join(lmdbNode.dataDir, file), join(backDir, file));
    const backNode = await start({ dataDir: backDir });
    await expectSameData(backNode, { orgId, orgSequence: org.body.details.sequence });
    await refresh(backNode, app, rotated);
    const found = await api(backNode)('POST', '/resources/v3alpha/organizations/_search', [{ name: { name: 'Made on', method: 'TEXT_FILTER_METHOD_STARTS_WITH_IGNORE_CASE' } }]);
    expect(found.body.result).toHaveLength(1);
  });

  it('refuses bad usage with exit code 2 and names the flag', async () => {
    const missing = await runCli(['copy-store', '--to', url], {});
    expect({ code: missing.code, stderr: missing.stderr }).toMatchObject({ code: 2, stderr: expect.stringContaining('--from is required') });
    const noStore = await runCli(['copy-store', '--from', join(tmpdir(), 'no-such-tessera-dir'), '--to', url], {});
    expect({ code: noStore.code, stderr: noStore.stderr }).toMatchObject({ code: 2, stderr: expect.stringContaining('--from: no LMDB store') });
    const same = await runCli(['copy-store', '--from', url, '--to', url], {});
    expect({ code: same.code, stderr: same.stderr }).toMatchObject({ code: 2, stderr: expect.stringContaining('the same store') });
  });
});

interface Expected {
  readonly orgId: string;
  readonly orgSequence: unknown;
}

async function expectSameData(node: TestNode, expected: Expected): Promise<void> {
  const call = api(node);
  const org = await call('GET', `/resources/v3alpha/organizations/${expected.orgId}`);
  expect(org.status).toBe(200);
  expect(org.body.organization).toMatchObject({ organization: { name: 'Moving Corp' }, details: { id: expected.orgId, sequence: expected.orgSequence } });
  const session = await call('POST', '/resources/v3alpha/sessions', { checks: { user: { loginName: 'mover@default.localhost' }, password: { password: PASSWORD } } });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  const wrong = await call('POST', '/resources/v3alpha/sessions', { checks: { user: { loginName: 'mover@default.localhost' }, password: { password: 'not-it' } } });
  expect(wrong.status).not.toBe(201);
}

/** Uses a refresh token once (openid: an ID token signed with the copied keys) and returns the rotated one. */
async function refresh(node: TestNode, app: AppClient, refreshToken: string): Promise<string> {
  const refreshed = await postForm(node, TOKEN, { grant_type: 'refresh_token', refresh_token: refreshToken }, basic(app.clientId, app.secret!));
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  const jwks = createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`));
  await jwtVerify(String(refreshed.body.id_token), jwks, { issuer: node.baseUrl });
  expect(refreshed.body.refresh_token).not.toBe(refreshToken);
  return String(refreshed.body.refresh_token);
}
