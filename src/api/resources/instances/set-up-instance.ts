/**
 * Sets up an instance the way first run and CreateInstance both need it: the directory entry
 * with its first domain, the default organization, the default feature flags and, optionally,
 * an admin machine user holding IAM_OWNER with a personal access token. Steps that already
 * happened (same ids) are tolerated, so an interrupted first run finishes the same setup.
 */
import { randomBytes } from 'node:crypto';
import {
  type ActorSystem,
  addMachineUser,
  addMembership,
  addPersonalAccessToken,
  AppError,
  createInstance,
  createOrg,
  type ResourceDetails,
  setDefaultOrg,
  setFeatures,
} from '../../../../actors/index.js';
import { tokenDigest } from '../../../crypto/token-digest.js';

export interface InstanceAdminPlan {
  readonly userId: string;
  readonly username: string;
  /** Epoch milliseconds. */
  readonly tokenExpiresAt: number;
  readonly description: string;
}

export interface InstancePlan {
  readonly instanceId: string;
  readonly orgId: string;
  readonly name: string;
  /** A normalized host name. */
  readonly domain: string;
  readonly orgName: string;
  /** Flags switched on (TESSERA_DEFAULT_FEATURES). */
  readonly features: readonly string[];
  readonly admin?: InstanceAdminPlan;
}

export interface InstanceSetUp {
  /** Details of the directory entry. */
  readonly details: ResourceDetails;
  /** The admin's personal access token (plaintext, to hand out once) and its id. */
  readonly admin?: { readonly token: string; readonly tokenId: string };
}

/** Codes meaning "this step already ran with these ids". */
const ALREADY_DONE = new Set(['instance.exists', 'org.exists', 'user.exists', 'membership.exists']);

export async function setUpInstance(actors: ActorSystem, plan: InstancePlan, creator: string): Promise<InstanceSetUp> {
  const as = { creator };
  const instance = { kind: 'instance', instanceId: plan.instanceId } as const;
  const org = { kind: 'org', instanceId: plan.instanceId, orgId: plan.orgId } as const;
  const created = await tolerateDone(actors.ask({ kind: 'system' }, createInstance, { instanceId: plan.instanceId, name: plan.name, domain: plan.domain }, as));
  await tolerateDone(actors.ask(org, createOrg, { orgId: plan.orgId, name: plan.orgName, instanceDomain: plan.domain }, as));
  await actors.ask(instance, setDefaultOrg, { orgId: plan.orgId }, as);
  await actors.ask(instance, setFeatures, { features: Object.fromEntries(plan.features.map((name) => [name, true])) }, as);
  const details = created ?? { id: plan.instanceId, sequence: 0, changeDate: 0, resourceOwner: { type: 'instance', id: plan.instanceId } };
  if (plan.admin === undefined) return { details };

  const admin = plan.admin;
  await tolerateDone(
    actors.ask(
      org,
      addMachineUser,
      { userId: admin.userId, orgId: plan.orgId, username: admin.username, name: 'Administrator', description: admin.description, accessTokenType: 'bearer' },
      as,
    ),
  );
  await tolerateDone(actors.ask(instance, addMembership, { contextType: 'instance', contextId: plan.instanceId, userId: admin.userId, roles: ['IAM_OWNER'] }, as));
  const token = randomBytes(32).toString('base64url');
  const tokenId = actors.ids.next();
  await actors.ask(org, addPersonalAccessToken, { userId: admin.userId, tokenId, digest: tokenDigest(token), expiresAt: admin.tokenExpiresAt }, as);
  return { details, admin: { token, tokenId } };
}

async function tolerateDone<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError && ALREADY_DONE.has(error.code)) return undefined;
    throw error;
  }
}
