/**
 * `tessera keys rotate|list [--instance <id>] [--algorithm RS256|ES256|EdDSA]` (docs/oidc/keys.md):
 * works on the store itself — LMDB is multi-process; PostgreSQL when TESSERA_DATABASE_URL is set —
 * whether a node runs on it or not.
 * It never generates a master key: new private keys must be sealed with the node's own key, so
 * rotate first checks that the key opens the instance's current active key.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  activeWebKey,
  ActorSystem,
  createIdGenerator,
  instanceKind,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  SYSTEM_TENANT,
  systemClock,
  UNIQUE_SCOPES,
  webKeysKind,
  type Logger,
  type SecretSealer,
} from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { createSecretSealer } from '../crypto/secret-sealer.js';
import { rotateInstanceWebKeys, webKeyPolicy } from '../crypto/web-keys.js';
import { openConfiguredStore } from './open-store.js';
import { loadMasterKey } from './master-key.js';

export const KEYS_USAGE = 'usage: tessera keys rotate|list [--instance <id>] [--algorithm RS256|ES256|EdDSA]';

interface KeysArgs {
  readonly action: 'rotate' | 'list';
  readonly instanceId: string | undefined;
  readonly algorithm: SigningAlgorithm | undefined;
}

class UsageError extends Error {}

/** Runs the subcommand; returns the exit code (2: usage or setup, 1: failure). */
export async function runKeysCommand(argv: readonly string[], config: Config, logger: Logger): Promise<number> {
  let args: KeysArgs;
  try {
    args = parseKeysArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${KEYS_USAGE}\n`);
    return 2;
  }
  const problem = missingSetup(config);
  if (problem !== undefined) {
    process.stderr.write(`tessera keys: ${problem}\n`);
    return 2;
  }
  const store = await openConfiguredStore(config, { logger });
  const sealer = createSecretSealer(loadMasterKey(config).key);
  const actors = new ActorSystem({ store, clock: systemClock, ids: createIdGenerator(() => Date.now()), sealer, logger, uniqueScopes: UNIQUE_SCOPES });
  try {
    const instanceIds = await selectInstances(actors, args.instanceId);
    if (instanceIds === undefined) {
      process.stderr.write(`tessera keys: no instance with id ${args.instanceId ?? ''}\n`);
      return 1;
    }
    for (const instanceId of instanceIds) {
      const line = args.action === 'list' ? await listKeys(actors, instanceId) : await rotateKeys(actors, sealer, config, instanceId, args);
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`tessera keys: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await actors.stop();
    await store.close();
  }
}

function parseKeysArgs(argv: readonly string[]): KeysArgs {
  const [action, ...rest] = argv;
  if (action !== 'rotate' && action !== 'list') throw new UsageError(`unknown keys command "${action ?? ''}"`);
  let instanceId: string | undefined;
  let algorithm: SigningAlgorithm | undefined;
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = (rest[i] as string).split('=', 2) as [string, string | undefined]; // i < length
    const value = inline ?? rest[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    if (flag === '--instance') instanceId = value;
    else if (flag === '--algorithm' && action === 'rotate') algorithm = parseAlgorithm(value);
    else throw new UsageError(`unknown option "${flag}"`);
  }
  return { action, instanceId, algorithm };
}

function parseAlgorithm(value: string): SigningAlgorithm {
  const found = SIGNING_ALGORITHMS.find((alg) => alg === value);
  if (found === undefined) throw new UsageError(`--algorithm must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  return found;
}

/** Why the data directory cannot be used, if it cannot. */
function missingSetup(config: Config): string | undefined {
  if (config.databaseUrl === undefined && !existsSync(join(config.dataDir, 'lmdb'))) return `no store in ${config.dataDir}; run "tessera init" first`;
  if (config.masterKey === undefined && !existsSync(join(config.dataDir, 'masterkey'))) {
    return 'no master key: set TESSERA_MASTERKEY to the key the node uses';
  }
  return undefined;
}

async function selectInstances(actors: ActorSystem, instanceId: string | undefined): Promise<string[] | undefined> {
  if (instanceId !== undefined) {
    return (await actors.readRecord(SYSTEM_TENANT, instanceKind, instanceId)) === undefined ? undefined : [instanceId];
  }
  const ids: string[] = [];
  for await (const record of actors.scanRecords(SYSTEM_TENANT, instanceKind)) ids.push(record.id);
  return ids;
}

async function rotateKeys(actors: ActorSystem, sealer: SecretSealer, config: Config, instanceId: string, args: KeysArgs) {
  const active = activeWebKey((await actors.readRecord(instanceId, webKeysKind, instanceId))?.state);
  if (active !== undefined) assertMasterKeyOpens(sealer, active.sealedPrivateKey, instanceId);
  const change = await rotateInstanceWebKeys(actors, instanceId, webKeyPolicy(config), { algorithm: args.algorithm });
  return { instanceId, retiredKid: change.previousActiveKid, activeKid: change.activeKid, nextKid: change.nextKid };
}

function assertMasterKeyOpens(sealer: SecretSealer, sealed: string, instanceId: string): void {
  try {
    sealer.open(sealed);
  } catch {
    throw new Error(`the master key does not open the signing keys of instance ${instanceId}; use the node's TESSERA_MASTERKEY`);
  }
}

async function listKeys(actors: ActorSystem, instanceId: string) {
  const ring = (await actors.readRecord(instanceId, webKeysKind, instanceId))?.state;
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const keys = (ring?.keys ?? []).map((key) => ({
    kid: key.kid,
    algorithm: key.algorithm,
    state: key.state,
    createdAt: iso(key.createdAt),
    activatedAt: iso(key.activatedAt),
    retiredAt: iso(key.retiredAt),
  }));
  return { instanceId, keys };
}
