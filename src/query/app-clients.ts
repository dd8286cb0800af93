/**
 * Client lookups for the OIDC endpoints: an application by client id (one claim lookup, then
 * point reads of the app, its project and its organization — an app of a removed org, of a
 * removed project or of an inactive project is not a usable client), its client secret check,
 * and its public keys for private_key_jwt assertions.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type ActorSystem,
  type AggregateRecord,
  APP_CLIENT_ID_SCOPE,
  type Application,
  applicationKind,
  orgKind,
  type Project,
  projectKind,
  usesClientSecret,
  usesKeys,
} from '../../actors/index.js';

/** A usable client: the application row and its (active) project row. */
export interface ClientApp {
  /** id, meta (owner = the org) and state: projectId, orgId, clientId, config, keys. */
  readonly app: AggregateRecord<Application>;
  /** The project: role assertion / check settings and roles. */
  readonly project: AggregateRecord<Project>;
}

/** A public key of an application as a JWK for signature verification (RFC 7517). */
export interface AppPublicJwk {
  readonly kty: 'RSA';
  readonly n: string;
  readonly e: string;
  readonly kid: string;
  readonly alg: 'RS256';
  readonly use: 'sig';
}

/** SHA-256 (base64url) of a client secret: the only form in which a secret is stored. */
export function clientSecretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** The usable client with this client id, or undefined (unknown, removed, or project inactive). */
export async function findAppByClientId(actors: ActorSystem, instanceId: string, clientId: string): Promise<ClientApp | undefined> {
  if (clientId === '' || clientId.length > 200) return undefined;
  const appId = await actors.findUnique(instanceId, APP_CLIENT_ID_SCOPE, clientId);
  if (appId === undefined) return undefined;
  const app = await actors.readRecord(instanceId, applicationKind, appId);
  if (app === undefined || app.state.clientId !== clientId) return undefined;
  const [project, org] = await Promise.all([
    actors.readRecord(instanceId, projectKind, app.state.projectId),
    actors.readRecord(instanceId, orgKind, app.state.orgId),
  ]);
  if (org === undefined || project === undefined || project.state.orgId !== app.state.orgId || project.state.state !== 'active') return undefined;
  return { app, project };
}

/**
 * True when `secret` is the app's current client secret and its auth method uses one
 * (client_secret_basic / _post). Compares digests in constant time.
 */
export function verifyAppSecret(app: Application, secret: string): boolean {
  if (!usesClientSecret(app.config) || app.secretDigest === '') return false;
  const expected = Buffer.from(app.secretDigest, 'base64url');
  const actual = createHash('sha256').update(secret).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * The app's unexpired public keys for verifying private_key_jwt client assertions (`kid` = key
 * id of the key file); empty unless the auth method is private_key_jwt.
 */
export function appPublicKeys(app: Application, now: number): AppPublicJwk[] {
  if (!usesKeys(app.config)) return [];
  return app.keys
    .filter((key) => key.expiresAt > now)
    .map((key) => ({ kty: 'RSA', n: key.publicKey.n, e: key.publicKey.e, kid: key.id, alg: 'RS256', use: 'sig' }));
}
