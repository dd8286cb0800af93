/**
 * More instances on one node for the tenant scenarios (issue 13): a system user whose key the
 * runner makes (TESSERA_SYSTEM_USERS), instances created through the system API
 * (`POST /resources/v3alpha/instances` with an admin, as test/e2e/instances.test.ts does), and
 * in each a service user with JWT access tokens and a client secret, created with the new
 * instance's admin token on its own domain.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { basicAuthorization } from './oidc.js';
import { httpRequest, TESSERA_HOST_HEADER, type TesseraNode } from './tessera.js';

const INSTANCES_PATH = '/resources/v3alpha/instances';
const USERS_PATH = '/resources/v3alpha/users';
const SYSTEM_USER = 'bench';

export interface SystemUser {
  /** The TESSERA_SYSTEM_USERS value configuring its public key. */
  readonly env: string;
  /** `Authorization: Bearer <JWT>` for a request with `Host: localhost`, fresh for the next minutes. */
  authorization(): string;
}

export function createSystemUser(): SystemUser {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const env = JSON.stringify({ [SYSTEM_USER]: { publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() } });
  let cached: { value: string; until: number } | undefined;
  return {
    env,
    authorization() {
      const now = Math.floor(Date.now() / 1000);
      if (cached === undefined || cached.until <= now) cached = { value: `Bearer ${mintJwt(privateKey, now)}`, until: now + 600 };
      return cached.value;
    },
  };
}

/** iss = sub = the user's name, aud = the URL the request goes to (http://localhost), 30 minutes. */
function mintJwt(key: KeyObject, now: number): string {
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'ES256', typ: 'JWT' })}.${encode({ iss: SYSTEM_USER, sub: SYSTEM_USER, aud: `http://${TESSERA_HOST_HEADER}`, iat: now, exp: now + 1800 })}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

export interface BenchInstance {
  readonly id: string;
  /** Its domain: the Host header of its requests. */
  readonly domain: string;
  readonly adminToken: string;
}

/** Creates an instance with an admin through the system API. */
export async function createInstance(node: TesseraNode, system: SystemUser, domain: string): Promise<BenchInstance> {
  const body = JSON.stringify({ name: `bench ${domain}`, domain, admin: { username: 'bench-admin' } });
  const result = await httpRequest(node.origin, 'POST', INSTANCES_PATH, { authorization: system.authorization(), 'content-type': 'application/json' }, body);
  if (result.status !== 201) throw new Error(`creating instance ${domain}: HTTP ${result.status} ${result.body.slice(0, 300)}`);
  const parsed = JSON.parse(result.body) as { details?: { id?: unknown }; adminToken?: unknown };
  if (typeof parsed.details?.id !== 'string' || typeof parsed.adminToken !== 'string') throw new Error(`creating instance ${domain}: no id or admin token in ${result.body.slice(0, 300)}`);
  return { id: parsed.details.id, domain, adminToken: parsed.adminToken };
}

/** A service user with JWT access tokens and a secret in the instance: its `Authorization: Basic …`. */
export async function createServiceClient(node: TesseraNode, instance: BenchInstance, username: string): Promise<string> {
  const headers = { host: instance.domain, authorization: `Bearer ${instance.adminToken}`, 'content-type': 'application/json' };
  const created = await httpRequest(node.origin, 'POST', USERS_PATH, headers, JSON.stringify({ machine: { username, name: username, accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' } }));
  if (created.status !== 201) throw new Error(`creating service user in ${instance.domain}: HTTP ${created.status} ${created.body.slice(0, 300)}`);
  const id = (JSON.parse(created.body) as { details?: { id?: unknown } }).details?.id;
  if (typeof id !== 'string') throw new Error(`creating service user in ${instance.domain}: no id in ${created.body.slice(0, 300)}`);
  const secret = await httpRequest(node.origin, 'POST', `${USERS_PATH}/${id}/_generate_secret`, headers);
  if (secret.status !== 200) throw new Error(`generating a secret in ${instance.domain}: HTTP ${secret.status} ${secret.body.slice(0, 300)}`);
  const parsed = JSON.parse(secret.body) as { clientId?: unknown; clientSecret?: unknown };
  if (typeof parsed.clientId !== 'string' || typeof parsed.clientSecret !== 'string') throw new Error(`generating a secret in ${instance.domain}: ${secret.body.slice(0, 300)}`);
  return basicAuthorization(parsed.clientId, parsed.clientSecret);
}

/** Runs `task` for 0..count-1 with `concurrency` in flight; results in index order. */
export async function inParallel<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, () => worker()));
  return results;
}
