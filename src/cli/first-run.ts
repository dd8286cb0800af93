/**
 * First run (issue: foundation §2): on an empty store create the first instance (domain
 * TESSERA_EXTERNAL_DOMAIN), its default organization, the instance's default features, and an
 * admin service user holding IAM_OWNER with a personal access token written to a 0600 file.
 * The plan (ids) is stored before the first step, and setUpInstance (shared with the system
 * API's CreateInstance) tolerates steps that already ran, so a start interrupted half-way
 * finishes the same setup instead of forking a second one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ActorSystem, ProgrammerError, type StoreAdapter } from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { setUpInstance } from '../api/resources/instances/set-up-instance.js';

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

  const ids = actors.ids;
  const plan: SetupPlan = existing ?? { instanceId: ids.next(), orgId: ids.next(), adminUserId: ids.next(), tokenId: ids.next() };
  await store.putMeta(SETUP_KEY, plan);

  const result = await setUpInstance(
    actors,
    {
      instanceId: plan.instanceId,
      orgId: plan.orgId,
      name: 'Tessera',
      domain: config.externalDomain.toLowerCase(),
      orgName: config.firstOrgName,
      features: config.defaultFeatures,
      admin: {
        userId: plan.adminUserId,
        username: config.adminUsername,
        tokenExpiresAt: deps.now() + config.adminTokenDays * 86_400_000,
        description: 'Created on first start',
      },
    },
    '',
  );
  if (result.admin === undefined) throw new ProgrammerError('setUpInstance must return the admin token it was asked for');
  const tokenFile = join(config.dataDir, 'admin.pat');
  writeFileSync(tokenFile, `${result.admin.token}\n`, { mode: 0o600 });

  const done: SetupPlan = { ...plan, tokenId: result.admin.tokenId, completedAt: deps.now() };
  await store.putMeta(SETUP_KEY, done);
  return { plan: done, created: true, tokenFile };
}
