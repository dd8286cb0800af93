/**
 * Writes the export document as a sequence of JSON text chunks: org by org, object by object,
 * so no more than one row is held at a time. Each table is scanned once up front into an
 * index of row ids per exported organization (ids only in memory); rows are then read by id
 * while writing, so the cost is linear in the rows, however many organizations there are.
 * Excluded by design (seed): instance policies and members, instance IDPs, machine keys, PATs,
 * application keys, passwordless authenticators, machine secrets. `otpCode` (a user's verified
 * TOTP secret, opened from its sealed form) only with `withOtp`.
 */
import {
  applicationKind,
  type ActorSystem,
  type AggregateKind,
  type AggregateRecord,
  membershipKind,
  orgDomains,
  orgKind,
  type HumanUser,
  type Idp,
  idpKind,
  type MachineUser,
  type Membership,
  type OidcConfig,
  type Org,
  type Project,
  projectGrantKind,
  projectKind,
  userGrantsKind,
  userKind,
  type User,
  type UserGrants,
  type UserLifecycle,
} from '../../../../actors/index.js';
import {
  apiAuthMethodNames,
  appTypeNames,
  genders,
  grantTypeNames,
  idpTypeNames,
  INACTIVE_STATES,
  msToDuration,
  oidcAuthMethodNames,
  oidcTokenTypeNames,
  responseTypeNames,
  userTokenTypes,
  validationTypes,
  type DataDomain,
  type DataHumanUser,
  type DataMachineUser,
  type DataOidcApp,
  type DataOrg,
  type DataProject,
  type DataUserLink,
} from './export-format.js';
import { brandingSettingsOf, forgeIdpOf, languageSettingsOf, lockoutPolicyOf, textSettingsOf } from './export-org-settings.js';
import { loginPolicyOf } from './login-policy-document.js';

export interface ExportOptions {
  readonly instanceId: string;
  /** The organizations to export, in document order. */
  readonly orgIds: readonly string[];
  readonly withPasswords: boolean;
  /** Adds `otpCode`, the base32 TOTP secret of each human with a verified TOTP. */
  readonly withOtp?: boolean;
  /** Called between rows: throws when the deadline passed or the client went away. */
  readonly checkpoint: () => void;
  /** When given, tallies what was written: `orgs` and every list key (`humanUsers`, …). */
  readonly counts?: Record<string, number>;
}

type ListKey = Exclude<keyof DataOrg, 'orgId' | 'org'>;

/** The document's JSON text in chunks; the concatenation is `{"orgs":[…]}`. */
export async function* exportDocument(actors: ActorSystem, options: ExportOptions): AsyncGenerator<string> {
  const exported = new Set(options.orgIds);
  const index = await indexOwners(actors, options.instanceId, exported, options.checkpoint);
  yield '{"orgs":[';
  let first = true;
  for (const orgId of options.orgIds) {
    const org = await actors.readRecord(options.instanceId, orgKind, orgId);
    if (org === undefined) continue;
    yield `${first ? '' : ','}{"orgId":${JSON.stringify(orgId)},"org":${JSON.stringify({ name: org.state.name })}`;
    first = false;
    if (options.counts !== undefined) options.counts.orgs = (options.counts.orgs ?? 0) + 1;
    const settings = {
      languageSettings: await languageSettingsOf(actors, options.instanceId, orgId),
      textSettings: await textSettingsOf(actors, options.instanceId, orgId),
      brandingSettings: await brandingSettingsOf(actors, options.instanceId, orgId),
      lockoutPolicy: await lockoutPolicyOf(actors, options.instanceId, orgId),
      loginPolicy: await loginPolicyOf(actors, options.instanceId, orgId),
    };
    for (const [key, value] of Object.entries(settings)) if (value !== undefined) yield `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
    for (const [key, rows] of orgLists(actors, options, org, exported, index)) {
      yield* jsonList(key, rows, options.checkpoint, options.counts);
    }
    yield '}';
  }
  yield ']}\n';
}

async function* jsonList(key: ListKey, rows: AsyncIterable<unknown>, checkpoint: () => void, counts: Record<string, number> | undefined): AsyncGenerator<string> {
  yield `,${JSON.stringify(key)}:[`;
  let first = true;
  for await (const row of rows) {
    checkpoint();
    if (counts !== undefined) counts[key] = (counts[key] ?? 0) + 1;
    yield `${first ? '' : ','}${JSON.stringify(row)}`;
    first = false;
  }
  yield ']';
}

function orgLists(
  actors: ActorSystem,
  options: ExportOptions,
  org: AggregateRecord<Org>,
  exported: ReadonlySet<string>,
  index: OwnerIndex,
): [ListKey, AsyncIterable<unknown>][] {
  const orgId = org.id;
  const rows = <S>(kind: AggregateKind<S>) => ownedRows(actors, options.instanceId, kind, index.get(kind.table)?.get(orgId) ?? []);
  return [
    ['domains', domainsOf(org)],
    ['forgeIdps', mapRows(rows(idpKind), (i) => forgeIdpOf(actors, i))],
    ['humanUsers', mapRows(rows(userKind), (u) => (u.state.type === 'human' ? humanOf(u.id, u.state, options.withPasswords, options.withOtp === true ? (sealed) => actors.sealer.open(sealed) : undefined) : undefined))],
    ['machineUsers', mapRows(rows(userKind), (u) => (u.state.type === 'machine' ? machineOf(u.id, u.state) : undefined))],
    ['userMetadata', flatRows(rows(userKind), (u) => u.state.metadata.map((m) => ({ id: u.id, key: m.key, value: m.value })))],
    ['userLinks', userLinksOf(actors, options.instanceId, rows(userKind))],
    ['projects', mapRows(rows(projectKind), (p) => projectOf(p.id, p.state))],
    ['projectRoles', flatRows(rows(projectKind), (p) => p.state.roles.map((r) => ({ projectId: p.id, roleKey: r.key, displayName: r.displayName, group: r.group })))],
    ['oidcApps', mapRows(rows(applicationKind), (a) => (a.state.config.type === 'oidc' ? oidcAppOf(a.id, a.state.projectId, a.state.name, a.state.config.oidc) : undefined))],
    [
      'apiApps',
      mapRows(rows(applicationKind), (a) =>
        a.state.config.type === 'api' ? { appId: a.id, app: { projectId: a.state.projectId, name: a.state.name, authMethodType: apiAuthMethodNames.toWire(a.state.config.api.authMethod) } } : undefined,
      ),
    ],
    [
      'projectGrants',
      mapRows(rows(projectGrantKind), (g) =>
        exported.has(g.state.grantedOrgId)
          ? { grantId: g.id, projectGrant: { projectId: g.state.projectId, grantedOrgId: g.state.grantedOrgId, roleKeys: [...g.state.roleKeys] }, ...inactive(g.state.state, INACTIVE_STATES.projectGrant) }
          : undefined,
      ),
    ],
    ['userGrants', userGrantsOf(actors, options.instanceId, rows(userGrantsKind), exported)],
    ['orgMembers', memberRows(actors, options.instanceId, rows(membershipKind), 'org', exported)],
    ['projectMembers', memberRows(actors, options.instanceId, rows(membershipKind), 'project', exported)],
  ];
}

/** table → organization → ids of the rows it owns (exported organizations only). */
type OwnerIndex = Map<string, Map<string, string[]>>;

const INDEXED_KINDS: readonly AggregateKind<unknown>[] = [userKind, projectKind, applicationKind, projectGrantKind, userGrantsKind, membershipKind, idpKind];

async function indexOwners(actors: ActorSystem, instanceId: string, exported: ReadonlySet<string>, checkpoint: () => void): Promise<OwnerIndex> {
  const index: OwnerIndex = new Map();
  for (const kind of INDEXED_KINDS) {
    const byOrg = new Map<string, string[]>();
    for await (const row of actors.scanRecords(instanceId, kind)) {
      checkpoint();
      const owner = row.meta.owner;
      if (owner.type !== 'org' || !exported.has(owner.id)) continue;
      let ids = byOrg.get(owner.id);
      if (ids === undefined) byOrg.set(flatCopy(owner.id), (ids = []));
      ids.push(flatCopy(row.id));
    }
    index.set(kind.table, byOrg);
  }
  return index;
}

/**
 * A copy of a decoded string that holds only its own characters. The store's decoder hands out
 * slices of a larger string (a page of decoded strings); keeping a slice keeps that whole
 * string alive, so 100k indexed ids held ~0.5 KB each instead of ~40 bytes (measured with
 * bench/export-large.ts: the export of 100k users ran out of a 64 MiB heap).
 */
function flatCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** The rows with these ids, read one at a time (a row removed meanwhile is left out). */
async function* ownedRows<S>(actors: ActorSystem, instanceId: string, kind: AggregateKind<S>, ids: readonly string[]): AsyncGenerator<AggregateRecord<S>> {
  for (const id of ids) {
    const row = await actors.readRecord(instanceId, kind, id);
    if (row !== undefined) yield row;
  }
}

async function* mapRows<S, T>(rows: AsyncIterable<AggregateRecord<S>>, map: (row: AggregateRecord<S>) => T | undefined): AsyncGenerator<T> {
  for await (const row of rows) {
    const value = map(row);
    if (value !== undefined) yield value;
  }
}

async function* flatRows<S, T>(rows: AsyncIterable<AggregateRecord<S>>, map: (row: AggregateRecord<S>) => readonly T[]): AsyncGenerator<T> {
  for await (const row of rows) yield* map(row);
}

/** Each human's IDP links, with the IDP's name and type (an IDP removed since: left out). */
async function* userLinksOf(actors: ActorSystem, instanceId: string, users: AsyncIterable<AggregateRecord<User>>): AsyncGenerator<DataUserLink> {
  const idps = new Map<string, AggregateRecord<Idp> | undefined>();
  for await (const user of users) {
    if (user.state.type !== 'human') continue;
    for (const link of user.state.idpLinks ?? []) {
      if (!idps.has(link.idpId)) idps.set(link.idpId, await actors.readRecord(instanceId, idpKind, link.idpId));
      const idp = idps.get(link.idpId);
      if (idp === undefined) continue;
      yield { userId: user.id, idpId: link.idpId, idpName: idp.state.name, providedUserId: link.externalUserId, providedUserName: link.externalUsername, idpType: idpTypeNames.toWire(idp.state.idpType) };
    }
  }
}

async function* domainsOf(org: AggregateRecord<Org>): AsyncGenerator<DataDomain> {
  for (const d of orgDomains(org.state)) {
    yield { orgId: org.id, domainName: d.domain, isVerified: d.isVerified, isPrimary: d.domain === org.state.primaryDomain, validationType: validationTypes.toWire(d.validationType) };
  }
}

function humanOf(userId: string, u: HumanUser, withPasswords: boolean, openOtp: ((sealed: string) => string) | undefined): DataHumanUser {
  const p = u.profile;
  return {
    userId,
    ...userState(u.state),
    user: {
      userName: u.username,
      profile: { firstName: p.givenName, lastName: p.familyName, nickName: p.nickname, displayName: p.displayName, preferredLanguage: p.preferredLanguage, gender: genders.toWire(p.gender) },
      email: { email: u.email.address, isEmailVerified: u.email.verified },
      ...(u.phone.number === '' ? {} : { phone: { phone: u.phone.number, isPhoneVerified: u.phone.verified } }),
      ...(withPasswords && u.passwordHash !== '' ? { hashedPassword: { value: u.passwordHash } } : {}),
      passwordChangeRequired: u.passwordChangeRequired,
      ...(openOtp !== undefined && u.totp?.verified === true ? { otpCode: openOtp(u.totp.sealedSecret) } : {}),
    },
  };
}

function machineOf(userId: string, u: MachineUser): DataMachineUser {
  return { userId, ...userState(u.state), user: { userName: u.username, name: u.name, description: u.description, accessTokenType: userTokenTypes.toWire(u.accessTokenType) } };
}

function projectOf(projectId: string, p: Project): DataProject {
  return { projectId, ...inactive(p.state, INACTIVE_STATES.project), project: { name: p.name, projectRoleAssertion: p.projectRoleAssertion, projectRoleCheck: p.projectRoleCheck, hasProjectCheck: p.hasProjectCheck } };
}

/** `{state}` for an object that is not active (Tessera extension), else nothing. */
function inactive(state: 'active' | 'inactive', name: string): { state?: string } {
  return state === 'active' ? {} : { state: name };
}

function userState(state: UserLifecycle): { state?: string } {
  if (state === 'inactive') return { state: INACTIVE_STATES.userInactive };
  return state === 'locked' ? { state: INACTIVE_STATES.userLocked } : {};
}

function oidcAppOf(appId: string, projectId: string, name: string, c: OidcConfig): DataOidcApp {
  return {
    appId,
    app: {
      projectId,
      name,
      redirectUris: [...c.redirectUris],
      responseTypes: c.responseTypes.map((t) => responseTypeNames.toWire(t)),
      grantTypes: c.grantTypes.map((t) => grantTypeNames.toWire(t)),
      appType: appTypeNames.toWire(c.appType),
      authMethodType: oidcAuthMethodNames.toWire(c.authMethod),
      postLogoutRedirectUris: [...c.postLogoutRedirectUris],
      version: 'OIDC_VERSION_1_0',
      devMode: c.devMode,
      accessTokenType: oidcTokenTypeNames.toWire(c.accessTokenType),
      accessTokenRoleAssertion: c.accessTokenRoleAssertion,
      idTokenRoleAssertion: c.idTokenRoleAssertion,
      idTokenUserinfoAssertion: c.idTokenUserinfoAssertion,
      clockSkew: msToDuration(c.clockSkewMs),
      additionalOrigins: [...c.additionalOrigins],
      skipNativeAppSuccessPage: c.skipNativeAppSuccessPage,
    },
  };
}

/** User grants on projects of exported organizations (and through exported project grants). */
async function* userGrantsOf(
  actors: ActorSystem,
  instanceId: string,
  rows: AsyncIterable<AggregateRecord<UserGrants>>,
  exported: ReadonlySet<string>,
): AsyncGenerator<NonNullable<DataOrg['userGrants']>[number]> {
  for await (const row of rows) {
    for (const g of row.state.grants) {
      const project = await actors.readRecord(instanceId, projectKind, g.projectId);
      if (project === undefined || !exported.has(project.state.orgId)) continue;
      yield { userId: row.state.userId, projectId: g.projectId, projectGrantId: g.projectGrantId, roleKeys: [...g.roleKeys], grantId: g.id, ...inactive(g.state, INACTIVE_STATES.userGrant) };
    }
  }
}

/** Org or project memberships owned by the organization whose user is exported too. */
async function* memberRows(
  actors: ActorSystem,
  instanceId: string,
  memberships: AsyncIterable<AggregateRecord<Membership>>,
  context: 'org' | 'project',
  exported: ReadonlySet<string>,
): AsyncGenerator<unknown> {
  for await (const m of memberships) {
    if (m.state.contextType !== context) continue;
    const user = await actors.readRecord(instanceId, userKind, m.state.userId);
    if (user === undefined || !exported.has(user.state.orgId)) continue;
    const roles = [...m.state.roles];
    yield context === 'org' ? { userId: m.state.userId, roles } : { projectId: m.state.contextId, userId: m.state.userId, roles };
  }
}
