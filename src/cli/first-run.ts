/**
 * First run (issue: foundation §2): on an empty store create the first instance (domain
 * TESSERA_EXTERNAL_DOMAIN), its default organization, the instance's default features, and an
 * admin service user holding IAM_OWNER with a personal access token written to a 0600 file.
 * The plan (ids) is stored before the first step, and every step tolerates "already exists",
 * so a start interrupted half-way finishes the same setup instead of forking a second one.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ActorSystem,
  addMachineUser,
  addMembership,
  addPersonalAccessToken,
  AppError,
  createInstance,
  createOrg,
  setDefaultOrg,
  setFeature,
  type StoreAdapter,
} from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { tokenDigest } from '../api/auth.js';

const SETUP_KEY = 'setup';

export interface SetupPlan {
  readonly instanceId: string;
  readonly orgId: string;
  readonly adminUserId: string;
  readonly tokenId: string;
  readonly completedAt?: number;
}

export interface FirstRunResult {
  readonly plan: SetupPlan;
  /** True when this call created the setup (false: an earlier start already had). */
  readonly created: boolean;
  /** Path of the admin token file, when this call wrote it. */
  readonly tokenFile?: string;
}

export async function ensureFirstRun(deps: { store: StoreAdapter; actors: ActorSystem; config: Config; now: () => number }): Promise<FirstRunResult> {
  const { store, actors, config } = deps;
  const existing = (await store.getMeta(SETUP_KEY)) as SetupPlan | undefined;
  if (existing?.completedAt !== undefined) return { plan: existing, created: false };

  const ids = actors.options.ids;
  const plan: SetupPlan = existing ?? { instanceId: ids.next(), orgId: ids.next(), adminUserId: ids.next(), tokenId: ids.next() };
  await store.putMeta(SETUP_KEY, plan);

  const system = { creator: '' };
  const instance = { kind: 'instance', instanceId: plan.instanceId } as const;
  const org = { kind: 'org', instanceId: plan.instanceId, orgId: plan.orgId } as const;
  const domain = config.externalDomain.toLowerCase();

  await tolerateExisting(actors.ask({ kind: 'system' }, createInstance, { instanceId: plan.instanceId, name: 'Tessera', domain }, system));
  await tolerateExisting(actors.ask(org, createOrg, { orgId: plan.orgId, name: config.firstOrgName, instanceDomain: domain }, system));
  await actors.ask(instance, setDefaultOrg, { orgId: plan.orgId }, system);
  for (const name of config.defaultFeatures) await actors.ask(instance, setFeature, { name, value: true }, system);
  await tolerateExisting(
    actors.ask(
      org,
      addMachineUser,
      { userId: plan.adminUserId, orgId: plan.orgId, username: config.adminUsername, name: 'Administrator', description: 'Created on first start', accessTokenType: 'bearer' },
      system,
    ),
  );
  await tolerateExisting(
    actors.ask(instance, addMembership, { contextType: 'instance', contextId: plan.instanceId, userId: plan.adminUserId, roles: ['IAM_OWNER'] }, system),
  );

  const token = randomBytes(32).toString('base64url');
  const expiresAt = deps.now() + config.adminTokenDays * 86_400_000;
  const tokenId = ids.next();
  await actors.ask(org, addPersonalAccessToken, { userId: plan.adminUserId, tokenId, digest: tokenDigest(token), expiresAt }, system);
  const tokenFile = join(config.dataDir, 'admin.pat');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });

  const done: SetupPlan = { ...plan, tokenId, completedAt: deps.now() };
  await store.putMeta(SETUP_KEY, done);
  return { plan: done, created: true, tokenFile };
}

async function tolerateExisting<T>(work: Promise<T>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof AppError && error.kind === 'already_exists')) throw error;
  }
}
