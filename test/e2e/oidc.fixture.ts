/**
 * Fixtures of the OAuth endpoint suites: form POSTs with fetch, Basic credentials as RFC 6749
 * §2.3.1 encodes them, clients seeded through the users / projects / apps APIs, and refresh
 * tokens written straight into the running node's TTL table (LMDB is multi-process) until a
 * grant that issues them (authorization_code, token exchange) exists.
 */
import { createTokenStore, type RefreshTokenRecord } from '../../src/oidc/shared/token-store.js';
import { api, type TestNode } from './harness.js';
import { openNodeStore } from './node-store.fixture.js';
import { readSetup } from './seed.fixture.js';

export interface FormResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: Record<string, any>;
}

export async function postForm(node: TestNode, path: string, params: string | Record<string, string>, headers: Record<string, string> = {}): Promise<FormResult> {
  const body = typeof params === 'string' ? params : new URLSearchParams(params).toString();
  const response = await fetch(`${node.baseUrl}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  return toResult(response);
}

export async function getWithBearer(node: TestNode, path: string, token: string): Promise<FormResult> {
  return toResult(await fetch(`${node.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } }));
}

async function toResult(response: Response): Promise<FormResult> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    body = { raw: text };
  }
  return { status: response.status, headers: response.headers, text, body };
}

export function basic(id: string, secret: string): Record<string, string> {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return { authorization: `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}` };
}

export interface MachineClient {
  readonly userId: string;
  readonly clientId: string;
  readonly secret: string;
}

export async function createMachineClient(node: TestNode, username: string, tokenType: 'JWT' | 'BEARER'): Promise<MachineClient> {
  const call = api(node);
  const created = await call('POST', '/resources/v3alpha/users', { machine: { username, name: `${username} name`, accessTokenType: `ACCESS_TOKEN_TYPE_${tokenType}` } });
  const userId: string = created.body.details.id;
  const secret = await call('POST', `/resources/v3alpha/users/${userId}/_generate_secret`);
  return { userId, clientId: secret.body.clientId, secret: secret.body.clientSecret };
}

export interface KeyFile {
  readonly keyId: string;
  readonly key: string;
  readonly userId?: string;
  readonly clientId?: string;
}

export async function addMachineKey(node: TestNode, userId: string): Promise<KeyFile> {
  const added = await api(node)('POST', `/resources/v3alpha/users/${userId}/keys`, { expirationDate: '2099-01-01T00:00:00Z' });
  return JSON.parse(added.body.keyFile) as KeyFile;
}

export interface AppClient {
  readonly appId: string;
  readonly clientId: string;
  readonly secret?: string;
  readonly projectId: string;
}

export async function createProject(node: TestNode, name: string): Promise<string> {
  return (await api(node)('POST', '/resources/v3alpha/projects', { name })).body.details.id;
}

export async function createApp(node: TestNode, projectId: string, name: string, config: Record<string, unknown>): Promise<AppClient> {
  const created = await api(node)('POST', '/resources/v3alpha/apps', { projectId, name, ...config });
  if (created.status !== 201) throw new Error(`app creation failed: ${JSON.stringify(created.body)}`);
  return { appId: created.body.details.id, clientId: created.body.clientId, projectId, ...(created.body.clientSecret ? { secret: created.body.clientSecret } : {}) };
}

export async function addAppKey(node: TestNode, appId: string): Promise<KeyFile> {
  return (await api(node)('POST', `/resources/v3alpha/apps/${appId}/keys`, { expirationDate: '2100-01-01T00:00:00Z' })).body.keyFile as KeyFile;
}

/**
 * Writes a refresh token row as a code or token-exchange grant would. The one seed that still goes
 * into the store (LMDB or PostgreSQL, through openNodeStore): a refresh token through the API needs
 * a code flow with a login, which these suites leave to the browser suites.
 */
export async function seedRefreshToken(node: TestNode, token: string, record: RefreshTokenRecord): Promise<void> {
  const setup = await readSetup(node);
  const store = await openNodeStore(node);
  try {
    await createTokenStore(store.ttl).putRefreshToken(setup.instanceId, token, record, Date.now() + 3_600_000);
  } finally {
    await store.close();
  }
}
