/**
 * System users (docs/api/instances.md "System API and system users"): configured with a
 * public key and system roles; they call the system API with a JWT bearer they sign
 * themselves — `iss` = `sub` = the user name, `aud` contains the URL the request is sent to,
 * `exp` at most one hour after `iat`, 1 s clock tolerance.
 */
import type { KeyObject } from 'node:crypto';
import { permissionDenied, rolesGrant, unauthenticated, type AppError } from '../../actors/index.js';
import { externalUrl } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { importPublicKeyPem, looksLikeJwt, peekIssuer, verifyBearerJwt } from '../crypto/jwt-bearer.js';
import { authenticate, bearerToken } from '../query/auth.js';
import type { ApiServices } from './call-context.js';
import type { CallMeta } from './rpc.js';
import { normalizeHost } from '../query/tenant.js';

const MAX_LIFETIME_SEC = 3600;
const CLOCK_TOLERANCE_SEC = 1;

/** The caller of a system API request. */
export interface SystemCaller {
  /** The configured user name (`iss` of its tokens). */
  readonly name: string;
  readonly roles: readonly string[];
}

/** What a system-context handler gets: no instance, a system user as the caller. */
export interface SystemCallContext {
  readonly caller: SystemCaller;
  readonly services: ApiServices;
  readonly meta: CallMeta;
  /** The creator recorded on events: `system:<user name>`. */
  readonly creator: string;
  can(permission: string): boolean;
  /** Throws permission_denied unless `can`. */
  require(permission: string): void;
  setStatus(status: number): void;
}

interface SystemUserKey {
  readonly key: KeyObject;
  readonly roles: readonly string[];
}

export type SystemUserDirectory = ReadonlyMap<string, SystemUserKey>;

/** The configured system users with their imported keys (checked by the config loader). */
export function createSystemUserDirectory(config: Config): SystemUserDirectory {
  return new Map(Object.entries(config.systemUsers).map(([name, user]) => [name, { key: importPublicKeyPem(user.publicKey), roles: user.roles }]));
}

/**
 * The system user of a request. No token or an invalid one → 401; a valid personal access
 * token of the Host's instance → 403 `auth.system_required` (right token, wrong API).
 */
export async function authenticateSystemUser(users: SystemUserDirectory, services: ApiServices, meta: CallMeta): Promise<SystemCaller> {
  const token = bearerToken(meta.headers.authorization);
  if (token === undefined) throw unauthenticated('auth.missing_token', 'authentication required: send Authorization: Bearer <token>');
  if (!looksLikeJwt(token)) {
    if (await isInstanceToken(services, meta)) throw permissionDenied('auth.system_required', 'this API needs a system user');
    throw invalidToken();
  }
  const name = peekIssuer(token);
  const user = name === undefined ? undefined : users.get(name);
  if (name === undefined || user === undefined) throw invalidToken('unknown issuer');
  const result = await verifyBearerJwt(token, user.key, {
    issuer: name,
    subject: name,
    audiences: audiencesOf(services.config, meta.host, meta.scheme),
    now: services.clock.now(),
    clockToleranceSec: CLOCK_TOLERANCE_SEC,
    maxLifetimeSec: MAX_LIFETIME_SEC,
  });
  if (!result.ok) throw invalidToken(result.reason);
  return { name, roles: user.roles };
}

/** True when the caller's system roles grant the permission. */
export function systemCallerCan(caller: SystemCaller, permission: string): boolean {
  return rolesGrant(caller.roles, permission);
}

/** The URLs a token may name in `aud`: the request URL's origin as sent, and the external URL of its host. */
export function audiencesOf(config: Config, host: string, scheme: 'http' | 'https'): string[] {
  const domain = normalizeHost(host);
  if (domain === '') return [];
  return [...new Set([`${scheme}://${host.trim().toLowerCase()}`, externalUrl(config, domain, scheme)])];
}

async function isInstanceToken(services: ApiServices, meta: CallMeta): Promise<boolean> {
  const instance = await services.tenants.resolveHost(meta.host);
  if (instance === undefined) return false;
  try {
    await authenticate(services.actors, instance.id, meta.headers.authorization, services.clock.now());
    return true;
  } catch {
    return false;
  }
}

function invalidToken(detail?: string): AppError {
  return unauthenticated('auth.invalid_token', 'the access token is invalid or expired', detail === undefined ? {} : { detail });
}
