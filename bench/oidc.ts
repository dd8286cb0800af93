/**
 * Seed for the OIDC scenarios of the benchmark (issue 4): two service users with client secrets
 * (one issuing JWT access tokens, one opaque), an API app with a secret that introspects the
 * opaque token, and one JWT access token for userinfo. Also switches the instance's active
 * signing key to a given algorithm (rotate twice through the web keys API, docs/oidc/keys.md).
 */
import { httpRequest, type TesseraNode } from './tessera.js';

export const TOKEN_PATH = '/oauth/v2/token';
export const INTROSPECT_PATH = '/oauth/v2/introspect';
export const USERINFO_PATH = '/oidc/v1/userinfo';
export const JWKS_PATH = '/oauth/v2/keys';
export const DISCOVERY_PATH = '/.well-known/openid-configuration';
const USERS_PATH = '/resources/v3alpha/users';
const PROJECTS_PATH = '/resources/v3alpha/projects';
const APPS_PATH = '/resources/v3alpha/apps';
const WEB_KEYS_PATH = '/resources/v3alpha/web_keys';

export type TokenAlgorithm = 'RS256' | 'ES256';

export interface OidcSeed {
  /** `Authorization: Basic …` of the JWT service user (client_secret_basic). */
  readonly jwtClientAuthorization: string;
  /** The same for the service user with opaque (bearer) access tokens. */
  readonly opaqueClientAuthorization: string;
  /** The client_credentials form body: the same for every request. */
  readonly tokenBody: string;
  /** `Authorization: Basic …` of the API app. */
  readonly introspectorAuthorization: string;
  /** `token=<opaque access token>` whose audience holds the API app's project. */
  readonly introspectionBody: string;
  /** A JWT access token of the JWT service user (scopes openid profile) for userinfo. */
  readonly userinfoToken: string;
}

/** An empty seed, to list the scenarios before anything is seeded. */
export const EMPTY_OIDC_SEED: OidcSeed = {
  jwtClientAuthorization: '',
  opaqueClientAuthorization: '',
  tokenBody: '',
  introspectorAuthorization: '',
  introspectionBody: '',
  userinfoToken: '',
};

/** client_secret_basic: id and secret form-urlencoded, then base64 (RFC 6749 §2.3.1). */
export function basicAuthorization(clientId: string, secret: string): string {
  const encode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

export async function seedOidc(node: TesseraNode, runId: string): Promise<OidcSeed> {
  const admin = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body: unknown, expected: number): Promise<Record<string, unknown>> => {
    const result = await httpRequest(node.origin, method, path, admin, body === undefined ? undefined : JSON.stringify(body));
    if (result.status !== expected) throw new Error(`seeding OIDC: ${method} ${path} → HTTP ${result.status} (expected ${expected}): ${result.body.slice(0, 300)}`);
    return asRecord(JSON.parse(result.body), `${method} ${path}`);
  };
  const createdId = (response: Record<string, unknown>, what: string): string => stringField(asRecord(response.details, what), 'id', what);

  const machine = async (kind: 'jwt' | 'opaque'): Promise<{ clientId: string; secret: string }> => {
    const username = `bench-${kind}-${runId}`;
    const accessTokenType = kind === 'jwt' ? 'ACCESS_TOKEN_TYPE_JWT' : 'ACCESS_TOKEN_TYPE_BEARER';
    const created = await call('POST', USERS_PATH, { machine: { username, name: `bench ${kind} ${runId}`, accessTokenType } }, 201);
    const id = createdId(created, 'create machine user');
    const secret = await call('POST', `${USERS_PATH}/${id}/_generate_secret`, undefined, 200);
    return { clientId: stringField(secret, 'clientId', 'generate secret'), secret: stringField(secret, 'clientSecret', 'generate secret') };
  };
  const [jwtUser, opaqueUser] = [await machine('jwt'), await machine('opaque')];

  const project = await call('POST', PROJECTS_PATH, { name: `bench ${runId}`, projectRoleAssertion: false, projectRoleCheck: false, hasProjectCheck: false }, 201);
  const projectId = createdId(project, 'create project');
  const app = await call('POST', APPS_PATH, { projectId, name: `bench introspector ${runId}`, api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } }, 201);
  const introspectorAuthorization = basicAuthorization(stringField(app, 'clientId', 'create app'), stringField(app, 'clientSecret', 'create app'));

  const token = async (authorization: string, scope: string): Promise<string> => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', scope }).toString();
    const result = await httpRequest(node.origin, 'POST', TOKEN_PATH, { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body);
    if (result.status !== 200) throw new Error(`seeding OIDC: client_credentials → HTTP ${result.status}: ${result.body.slice(0, 300)}`);
    return stringField(asRecord(JSON.parse(result.body), 'token response'), 'access_token', 'token response');
  };
  const jwtClientAuthorization = basicAuthorization(jwtUser.clientId, jwtUser.secret);
  const opaqueClientAuthorization = basicAuthorization(opaqueUser.clientId, opaqueUser.secret);
  // The opaque token's audience must hold the introspecting app's project (docs/oidc/introspection.md).
  const opaque = await token(opaqueClientAuthorization, `openid profile urn:platform:iam:org:project:id:${projectId}:aud`);
  const userinfoToken = await token(jwtClientAuthorization, 'openid profile');
  return {
    jwtClientAuthorization,
    opaqueClientAuthorization,
    tokenBody: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid profile' }).toString(),
    introspectorAuthorization,
    introspectionBody: new URLSearchParams({ token: opaque }).toString(),
    userinfoToken,
  };
}

/** Rotates twice with `algorithm` unless the active key already uses it; returns the rotations made. */
export async function ensureSigningAlgorithm(node: TesseraNode, algorithm: TokenAlgorithm): Promise<number> {
  const admin = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
  const listed = await httpRequest(node.origin, 'GET', WEB_KEYS_PATH, admin);
  if (listed.status !== 200) throw new Error(`GET ${WEB_KEYS_PATH} → HTTP ${listed.status}: ${listed.body.slice(0, 300)}`);
  const keys = asRecord(JSON.parse(listed.body), 'web keys').webKeys;
  const active = Array.isArray(keys) ? keys.map((key) => asRecord(key, 'web key')).find((key) => key.state === 'WEB_KEY_STATE_ACTIVE') : undefined;
  if (active?.algorithm === `WEB_KEY_ALGORITHM_${algorithm}`) return 0;
  // The new key is `next` first: the second rotation makes it active (docs/oidc/keys.md).
  for (let i = 0; i < 2; i++) {
    const rotated = await httpRequest(node.origin, 'POST', `${WEB_KEYS_PATH}/_rotate`, admin, JSON.stringify({ algorithm: `WEB_KEY_ALGORITHM_${algorithm}` }));
    if (rotated.status !== 200) throw new Error(`rotate to ${algorithm} → HTTP ${rotated.status}: ${rotated.body.slice(0, 300)}`);
  }
  return 2;
}

/** The `alg` of a compact JWS's header; undefined for anything else (an opaque token). */
export function jwsAlgorithm(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] === undefined) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    const alg = typeof header === 'object' && header !== null && 'alg' in header ? header.alg : undefined;
    return typeof alg === 'string' ? alg : undefined;
  } catch {
    return undefined;
  }
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what}: expected an object, got ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

function stringField(record: Record<string, unknown>, name: string, what: string): string {
  const value = record[name];
  if (typeof value !== 'string' || value === '') throw new Error(`${what}: no ${name} in ${JSON.stringify(record).slice(0, 300)}`);
  return value;
}
