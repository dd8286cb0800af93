/**
 * The OIDC clients of an instance, held by its read state (docs/architecture.md "Instance read
 * state"): an app by client id, else a machine user by login name. A found client depends on
 * the streams it was read from — the app, its project and its org; the machine user and its org
 * (and the instance settings, whose default org a login name may resolve through) — at the
 * versions read, so the one invalidation (this node's own appends, the worker feed, the
 * PostgreSQL change feed) drops it when one of them moves; any other write in the instance
 * leaves it held. An unknown client id is held too (the id space is attacker-controlled) until a
 * stream of a type that could make it known moves (apps, projects, orgs, users, instance
 * settings). A held client is a synchronous Map lookup. Bounded per instance: MAX_CLIENTS
 * found clients and MAX_UNKNOWN unknown ids, the oldest dropped first.
 *
 * Across nodes a held client is as fresh as the change feed (normally milliseconds behind the
 * write): client-auth.ts re-reads a held client once before refusing it, so a new secret is
 * accepted at once everywhere; a revoked one may still be accepted on another node until the
 * feed's change arrives.
 */
import {
  type ActorSystem,
  type AggregateRecord,
  applicationKind,
  type HeldById,
  type HeldFamily,
  instanceSettingsKind,
  type MachineUser,
  orgKind,
  projectKind,
  streamAt,
  userKind,
} from '../../../actors/index.js';
import { findAppByClientId, type ClientApp } from '../../query/app-clients.js';
import { findUserByLoginName } from '../../query/user-auth.js';

export type ResolvedClient =
  | { readonly kind: 'app'; readonly app: ClientApp; readonly secretDigest: Buffer | undefined }
  | { readonly kind: 'machine'; readonly user: AggregateRecord<MachineUser>; readonly secretDigest: Buffer | undefined }
  | { readonly kind: 'unknown' };

/**
 * The stored secret digest (base64url SHA-256) decoded once, when the client is loaded: it lives
 * in the cache entry beside the record it came from, so any change (a new secret included) that
 * reloads the entry decodes it anew. '' (no secret) → undefined.
 */
export function decodeSecretDigest(stored: string): Buffer | undefined {
  return stored === '' ? undefined : Buffer.from(stored, 'base64url');
}

export function resolvedApp(app: ClientApp): ResolvedClient {
  return { kind: 'app', app, secretDigest: decodeSecretDigest(app.app.state.secretDigest) };
}

export function resolvedMachine(user: AggregateRecord<MachineUser>): ResolvedClient {
  return { kind: 'machine', user, secretDigest: decodeSecretDigest(user.state.secretDigest) };
}

export interface ClientCacheOptions {
  readonly actors: ActorSystem;
  /** Found clients held per instance (default MAX_CLIENTS). */
  readonly maxEntries?: number;
  /** Unknown client ids held per instance (default MAX_UNKNOWN). */
  readonly maxUnknown?: number;
}

export interface ClientCache {
  /** The held client (synchronously), else its load. */
  resolve(instanceId: string, clientId: string): ResolvedClient | Promise<ResolvedClient>;
  /** Reads the client anew from the store, bypassing and replacing what is held. */
  reload(instanceId: string, clientId: string): Promise<ResolvedClient>;
}

export const MAX_CLIENTS = 10_000;
export const MAX_UNKNOWN = 1_000;

const UNKNOWN: ResolvedClient = Object.freeze({ kind: 'unknown' });
const UNKNOWN_HELD: HeldById<ResolvedClient> = Object.freeze({ value: UNKNOWN, streams: undefined });
/** Stream types whose change could make an unknown client id known (a creation, a rename, a reactivation, a domain). */
const CLIENT_TYPES = [applicationKind.type, projectKind.type, orgKind.type, userKind.type, instanceSettingsKind.type];

/** `family`: what the instance state holds the clients under (tests count it: InstanceReadState.heldCount). */
export function createClientCache(options: ClientCacheOptions): ClientCache & { readonly family: HeldFamily<ResolvedClient> } {
  const { actors } = options;
  const family: HeldFamily<ResolvedClient> = {
    name: 'oidc clients',
    max: options.maxEntries ?? MAX_CLIENTS,
    maxMisses: options.maxUnknown ?? MAX_UNKNOWN,
    types: CLIENT_TYPES,
    load: (instanceId, clientId) => lookupClient(actors, instanceId, clientId),
  };
  return {
    family,
    resolve(instanceId, clientId) {
      if (clientId === '' || clientId.length > 200) return UNKNOWN;
      return actors.instanceState(instanceId).holdById(family, clientId);
    },
    reload(instanceId, clientId) {
      if (clientId === '' || clientId.length > 200) return Promise.resolve(UNKNOWN);
      return actors.instanceState(instanceId).reloadById(family, clientId);
    },
  };
}

async function lookupClient(actors: ActorSystem, instanceId: string, clientId: string): Promise<HeldById<ResolvedClient>> {
  const app = await findAppByClientId(actors, instanceId, clientId);
  if (app !== undefined) {
    const org = await actors.readRecord(instanceId, orgKind, app.app.state.orgId);
    if (org === undefined) return UNKNOWN_HELD; // removed in between: read again on the next change
    return { value: resolvedApp(app), streams: [streamAt(applicationKind.type, app.app.id, app.app), streamAt(projectKind.type, app.project.id, app.project), streamAt(orgKind.type, org.id, org)] };
  }
  const user = await findUserByLoginName(actors, instanceId, clientId);
  if (user === undefined || user.state.type !== 'machine') return UNKNOWN_HELD;
  const [org, settings] = await Promise.all([actors.readRecord(instanceId, orgKind, user.state.orgId), actors.readRecord(instanceId, instanceSettingsKind, instanceId)]);
  if (org === undefined) return UNKNOWN_HELD;
  const streams = [streamAt(userKind.type, user.id, user), streamAt(orgKind.type, org.id, org), streamAt(instanceSettingsKind.type, instanceId, settings)];
  return { value: resolvedMachine(user as AggregateRecord<MachineUser>), streams };
}
