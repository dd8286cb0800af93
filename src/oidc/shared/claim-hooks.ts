/**
 * Function executions in the OIDC code paths (reference facts §3.4): `preaccesstoken` when a
 * JWT access token is created, `preuserinfo` when userinfo claims are assembled (userinfo
 * endpoint, ID tokens, introspection). Hot path: an instance without an execution for the
 * function costs the runtime's cached-plan Map lookup; only then are the user and org read and
 * the payload built. Claims are added by the runtime's rules (never overriding, reserved
 * `urn:platform:iam` keys ignored, log lines in `urn:platform:iam:action:<fn>:log`).
 * `set_user_metadata` entries are written on the subject user (a failure becomes a log line).
 */
import { type ActorSystem, type AggregateRecord, orgKind, setUserMetadata, type UserGrant, userGrantsKind, type User, userKind } from '../../../actors/index.js';
import { loginNamesOf } from '../../query/user-auth.js';
import type { ExecutionFunction } from '../../executions/catalog.js';
import { type FunctionOutcome, type FunctionPayload, logClaimName } from '../../executions/functions.js';
import type { ClaimSubject, Claims } from './claims.js';

/** What the execution runtime offers the OIDC code (ExecutionRuntime implements it). */
export interface FunctionRunner {
  /** Whether the instance has an execution for the function; synchronous once its plan is cached. */
  hasFunction(instanceId: string, name: ExecutionFunction): boolean | Promise<boolean>;
  runFunction(instanceId: string, name: ExecutionFunction, payload: FunctionPayload): Promise<FunctionOutcome>;
}

export interface ClaimHookCall {
  readonly instanceId: string;
  readonly clientId: string;
  /** The token's subject: a loaded subject, or a user id read only when a function runs. */
  readonly subject: ClaimSubject | string;
}

export interface ClaimHooks {
  /** Claims with the function's additions; the same object when the instance has no execution for it. */
  apply(name: ExecutionFunction, call: ClaimHookCall, claims: Claims): Claims | Promise<Claims>;
}

/** Hooks that never change anything (nodes and tests without an execution runtime). */
export const NO_CLAIM_HOOKS: ClaimHooks = { apply: (_name, _call, claims) => claims };

export function createClaimHooks(actors: ActorSystem, runner: FunctionRunner | undefined): ClaimHooks {
  if (runner === undefined) return NO_CLAIM_HOOKS;
  const run = async (name: ExecutionFunction, call: ClaimHookCall, claims: Claims): Promise<Claims> => {
    const subject = typeof call.subject === 'string' ? await loadSubject(actors, call.instanceId, call.subject) : call.subject;
    if (subject === undefined) return claims;
    const grants = (await actors.readRecord(call.instanceId, userGrantsKind, subject.user.id))?.state.grants ?? [];
    const outcome = await runner.runFunction(call.instanceId, name, functionPayload(subject, call.clientId, claims, grants));
    const failures = await writeMetadata(actors, call.instanceId, subject, outcome.userMetadata);
    const added = failures.length === 0 ? outcome.claims : withLogLines(name, outcome.claims, failures);
    return Object.keys(added).length === 0 ? claims : { ...claims, ...added };
  };
  return {
    apply(name, call, claims) {
      const has = runner.hasFunction(call.instanceId, name);
      if (has === false) return claims; // the hot path
      if (has === true) return run(name, call, claims);
      return has.then((yes) => (yes ? run(name, call, claims) : claims));
    },
  };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Writes `set_user_metadata` on the subject; returns a log line per entry that failed. */
async function writeMetadata(actors: ActorSystem, instanceId: string, subject: ClaimSubject, entries: readonly { key: string; value: string }[]): Promise<string[]> {
  const failures: string[] = [];
  const { orgId } = subject.user.state;
  for (const { key, value } of entries) {
    try {
      if (key.length > 200 || value === '' || !BASE64.test(value)) throw new Error('invalid metadata');
      await actors.ask({ kind: 'org', instanceId, orgId }, setUserMetadata, { orgId, userId: subject.user.id, key, value }, { creator: '' });
    } catch {
      failures.push(`failed to set user metadata "${key}"`);
    }
  }
  return failures;
}

function withLogLines(name: ExecutionFunction, claims: Claims, lines: readonly string[]): Claims {
  const logClaim = logClaimName(name);
  const existing = claims[logClaim];
  return { ...claims, [logClaim]: [...(Array.isArray(existing) ? (existing as unknown[]) : []), ...lines] };
}

async function loadSubject(actors: ActorSystem, instanceId: string, userId: string): Promise<ClaimSubject | undefined> {
  const user = await actors.readRecord(instanceId, userKind, userId);
  if (user === undefined) return undefined;
  return { user, org: await actors.readRecord(instanceId, orgKind, user.state.orgId) };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The payload of reference facts §3.4 (snake_case as the reference sends it). */
export function functionPayload(subject: ClaimSubject, clientId: string, claims: Claims, grants: readonly UserGrant[] = []): FunctionPayload {
  const { user, org } = subject;
  const meta = { creation_date: iso(user.meta.createdAt), change_date: iso(user.meta.changedAt), resource_owner: user.state.orgId, sequence: user.meta.sequence };
  return {
    userinfo: claims,
    user: userPayload(user, org?.state),
    user_metadata: user.state.metadata.map((m) => ({ ...meta, key: m.key, value: m.value })),
    org: org === undefined ? {} : { id: org.id, name: org.state.name, primary_domain: org.state.primaryDomain },
    user_grants: grants.map((g) => ({
      id: g.id,
      creation_date: iso(g.createdAt),
      change_date: iso(g.changedAt),
      sequence: g.sequence,
      roles: g.roleKeys,
      grant_id: g.projectGrantId,
      state: g.state === 'active' ? 1 : 2,
      user_id: user.id,
      project_id: g.projectId,
      resource_owner: user.state.orgId,
      org_name: org?.state.name ?? '',
      org_primary_domain: org?.state.primaryDomain ?? '',
    })),
    application: { client_id: clientId },
  };
}

function userPayload(user: AggregateRecord<User>, org: Parameters<typeof loginNamesOf>[1]): Record<string, unknown> {
  const s = user.state;
  const names = loginNamesOf(s.username, org);
  const base = {
    id: user.id,
    creation_date: iso(user.meta.createdAt),
    change_date: iso(user.meta.changedAt),
    resource_owner: s.orgId,
    sequence: user.meta.sequence,
    state: s.state,
    type: s.type === 'human' ? 1 : 2,
    username: s.username,
    login_names: names.loginNames,
    preferred_login_name: names.preferredLoginName,
  };
  if (s.type === 'machine') return { ...base, machine: { name: s.name, description: s.description, access_token_type: s.accessTokenType === 'jwt' ? 1 : 0 } };
  const p = s.profile;
  return {
    ...base,
    human: {
      first_name: p.givenName,
      last_name: p.familyName,
      nick_name: p.nickname,
      display_name: p.displayName,
      preferred_language: p.preferredLanguage,
      email: s.email.address,
      is_email_verified: s.email.verified,
      phone: s.phone.number,
      is_phone_verified: s.phone.verified,
      password_change_required: s.passwordChangeRequired,
    },
  };
}
