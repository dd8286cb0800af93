/**
 * Refresh-token reuse detection (RFC 9700 §4.14.2) against a started node, on LMDB and on
 * PostgreSQL (skipped with the reason without TESSERA_TEST_DATABASE_URL): real grants from the
 * code flow (login with fetch, login-fetch.fixture.ts), a public client with opaque access
 * tokens and a confidential one with JWT access tokens. Replaying a rotated refresh token is
 * refused and revokes the family: the current refresh token is refused, the access token issued
 * with it is inactive at introspection and refused by userinfo, and `user.refresh.token.reused`
 * is written once. Without a replay the family keeps working (positive control).
 */
import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itIfMet, meet, POSTGRES, UNCONDITIONAL } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { startTestNode, type TestNode } from './harness.js';
import { openNodeStore } from './node-store.fixture.js';
import { FetchBrowser } from './login-fetch.fixture.js';
import { createHuman, PASSWORD } from './oidc-code-flow.fixture.js';
import { type AppClient, basic, createApp, createProject, getWithBearer, postForm } from './oidc.fixture.js';
import { readSetup } from './seed.fixture.js';

const REDIRECT = 'http://127.0.0.1:9/cb';
const VERIFIER = 'reuse-detection-verifier-0123456789-abcdefghijklmnop';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const TOKEN = '/oauth/v2/token';
const REUSED = 'user.refresh.token.reused';

const stores = [
  { name: 'LMDB', verdict: UNCONDITIONAL },
  { name: 'PostgreSQL', verdict: await meet(POSTGRES) },
] as const;

describe.each(stores)('refresh-token reuse on $name', ({ name, verdict }) => {
  const schema = freshSchemaName();
  let node: TestNode;
  let userId: string;
  let publicApp: AppClient;
  let confidentialApp: AppClient;
  let introspector: AppClient;
  let username: string;

  const clients = () => [
    { kind: 'public client, opaque access tokens', app: publicApp, auth: (): Record<string, string> => ({}), body: { client_id: publicApp.clientId } as Record<string, string> },
    { kind: 'confidential client, JWT access tokens', app: confidentialApp, auth: () => basic(confidentialApp.clientId, confidentialApp.secret!), body: {} as Record<string, string> },
  ];
  type Client = ReturnType<typeof clients>[number];

  beforeAll(async () => {
    if (verdict.outcome !== 'run') return;
    const env: Record<string, string> = name === 'PostgreSQL' ? { TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '', TESSERA_DATABASE_SCHEMA: schema, TESSERA_MASTERKEY: 'b'.repeat(64) } : {};
    node = await startTestNode({ env });
    const projectId = await createProject(node, 'Reuse');
    const oidc = { redirectUris: [REDIRECT], responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'] };
    publicApp = await createApp(node, projectId, 'Public', { oidc: { ...oidc, appType: 'OIDC_APP_TYPE_USER_AGENT', authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' } });
    confidentialApp = await createApp(node, projectId, 'Confidential', { oidc: { ...oidc, appType: 'OIDC_APP_TYPE_WEB', authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' } });
    introspector = await createApp(node, projectId, 'Introspector', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    username = `reuse-${name.toLowerCase()}`;
    userId = await createHuman(node, username);
  });
  afterAll(async () => {
    if (verdict.outcome !== 'run') return;
    await node.stop();
    node.cleanup();
    if (name === 'PostgreSQL') await dropSchema(schema);
  });

  /** A fresh grant: login, code, tokens (with a refresh token for offline_access). */
  async function grant(client: Client): Promise<{ access: string; refresh: string }> {
    const url = new URL(`${node.baseUrl}/oauth/v2/authorize`);
    const params = { client_id: client.app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid offline_access', state: 's1', code_challenge: CHALLENGE, code_challenge_method: 'S256' };
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    const arrival = await new FetchBrowser(node).authorize(url, { loginName: username, password: PASSWORD });
    const code = arrival.params.get('code');
    expect(code, JSON.stringify(Object.fromEntries(arrival.params))).toEqual(expect.any(String));
    const tokens = await postForm(node, TOKEN, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, code_verifier: VERIFIER, ...client.body }, client.auth());
    expect(tokens.status, tokens.text).toBe(200);
    return { access: String(tokens.body.access_token), refresh: String(tokens.body.refresh_token) };
  }

  const refresh = (client: Client, token: string) => postForm(node, TOKEN, { grant_type: 'refresh_token', refresh_token: token, ...client.body }, client.auth());
  const active = async (token: string) => (await postForm(node, '/oauth/v2/introspect', { token }, basic(introspector.clientId, introspector.secret!))).body.active;
  const userinfoStatus = async (token: string) => (await getWithBearer(node, '/oidc/v1/userinfo', token)).status;

  /** The user's reuse events, read from the node's store. */
  async function reuseEvents(): Promise<unknown[]> {
    if (name === 'PostgreSQL') {
      const sql = postgres(TEST_DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
      try {
        const rows = await sql.unsafe(`SELECT type FROM "${schema}".events WHERE aggregate_type = 'user' AND aggregate_id = $1 AND type = $2`, [userId, REUSED]);
        return rows.map((r) => ({ type: r.type }));
      } finally {
        await sql.end({ timeout: 5 });
      }
    }
    const { instanceId } = await readSetup(node);
    const store = await openNodeStore(node);
    try {
      return (await store.readStream(instanceId, 'user', userId)).filter((e) => e.type === REUSED).map(({ type, payload }) => ({ type, payload }));
    } finally {
      await store.close();
    }
  }

  itIfMet(verdict, 'keeps a family that is only rotated forward working (positive control)', async () => {
    for (const client of clients()) {
      const first = await grant(client);
      const second = await refresh(client, first.refresh);
      expect(second.status, `${client.kind}: ${second.text}`).toBe(200);
      const third = await refresh(client, String(second.body.refresh_token));
      expect(third.status, `${client.kind}: ${third.text}`).toBe(200);
      expect(await active(String(third.body.access_token)), client.kind).toBe(true);
      expect(await userinfoStatus(String(third.body.access_token)), client.kind).toBe(200);
    }
    expect(await reuseEvents()).toEqual([]);
  });

  itIfMet(verdict, 'revokes the whole family when a rotated refresh token is replayed', async () => {
    const expectedEvents: unknown[] = [];
    for (const client of clients()) {
      const first = await grant(client);
      const rotated = await refresh(client, first.refresh);
      expect(rotated.status, rotated.text).toBe(200);
      const rt2 = String(rotated.body.refresh_token);
      const at2 = String(rotated.body.access_token);
      expect(await active(at2), `${client.kind}: the new access token works before the replay`).toBe(true);

      const replay = await refresh(client, first.refresh);
      expect(`${replay.status} ${String(replay.body.error)}`, client.kind).toBe('400 invalid_grant');
      expect(await active(at2), `${client.kind}: the access token of the family is inactive`).toBe(false);
      expect(await userinfoStatus(at2), client.kind).toBe(401);
      const afterReplay = await refresh(client, rt2);
      expect(`${afterReplay.status} ${String(afterReplay.body.error)}`, `${client.kind}: the current refresh token is refused`).toBe('400 invalid_grant');
      // A second replay changes nothing and writes no second event.
      expect((await refresh(client, first.refresh)).body.error).toBe('invalid_grant');
      expectedEvents.push(name === 'PostgreSQL' ? { type: REUSED } : { type: REUSED, payload: { clientId: client.app.clientId, grantId: expect.any(String) } });
    }
    expect(await reuseEvents()).toEqual(expectedEvents);
  });

  itIfMet(verdict, 'leaves other grants of the same user and client alone', async () => {
    const client = clients()[0]!;
    const victim = await grant(client);
    const bystander = await grant(client);
    expect((await refresh(client, victim.refresh)).status).toBe(200);
    expect((await refresh(client, victim.refresh)).body.error).toBe('invalid_grant');
    expect(await active(bystander.access)).toBe(true);
    expect((await refresh(client, bystander.refresh)).status).toBe(200);
  });
});
