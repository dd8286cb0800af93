/**
 * Phase 1 of an import, per organization (reference facts §6.2): the org with its original
 * id, domains (verified / primary as in the source), human and machine users (original ids;
 * a hashed password is kept as is, so the user logs in with the original password), user
 * metadata, projects, roles, OIDC and API apps (original ids; the target generates the client
 * id and a new secret, returned once in `appClientIds`; the source's secret is never exported).
 */
import { randomBytes } from 'node:crypto';
import {
  importTotp,
  addHumanUser,
  addUserIdpLink,
  addMachineUser,
  addOrgDomain,
  addOrgDomainVerification,
  addProjectRole,
  applicationKind,
  createApp,
  createOrg,
  createProject,
  idpKind,
  invalidArgument,
  orgDomains,
  orgKind,
  projectKind,
  setPrimaryOrgDomain,
  setUserMetadata,
  userKind,
  verifyOrgDomain,
  type AddHumanUser,
  type AppConfig,
  type CommandHandler,
  type OidcConfig,
} from '../../../../actors/index.js';
import {
  apiAuthMethodNames,
  appTypeNames,
  durationToMs,
  genders,
  grantTypeNames,
  oidcAuthMethodNames,
  oidcTokenTypeNames,
  responseTypeNames,
  userTokenTypes,
  validationTypes,
  type DataHumanUser,
  type DataOidcApp,
  type DataOrg,
} from './export-format.js';
import { randomSecret } from '../../../crypto/random.js';
import { clientSecretDigest } from '../../../query/app-clients.js';
import type { ImportRun, OrgSuccess } from './import-run.js';
import { importOrgSettings } from './import-org-settings.js';
import { checkItem, domainItem, enumOf, humanItem, machineItem, metadataItem, namedItem, otpItem, roleItem } from './import-validation.js';

/** Imports the org and its own objects; false when the org could neither be created nor found. */
export async function importOrgObjects(run: ImportRun, data: DataOrg, success: OrgSuccess): Promise<boolean> {
  const { actors, instanceId } = run.deps;
  const orgId = data.orgId;
  const ask = <C, R>(handler: CommandHandler<C, R>, command: C) => actors.ask({ kind: 'org', instanceId, orgId }, handler, command, { creator: run.deps.creator });
  const org = () => actors.readRecord(instanceId, orgKind, orgId);

  const outcome = await run.item('org', orgId, async () => (await org()) !== undefined, async () => {
    checkItem(namedItem, data.org, 'org');
    await ask(createOrg, { orgId, name: data.org.name, instanceDomain: run.deps.instanceDomain });
  });
  if (outcome === 'failed') return false;

  for (const d of data.domains ?? []) {
    const domain = d.domainName.trim().toLowerCase().replace(/\.$/, '');
    const entry = async () => {
      const current = await org();
      return current === undefined ? undefined : orgDomains(current.state).find((x) => x.domain === domain);
    };
    const has = async () => (await entry()) !== undefined;
    const added = await run.item('domain', `${orgId}_${domain}`, has, async () => {
      checkItem(domainItem, d, 'domain');
      await ask(addOrgDomain, { orgId, domain, validationType: validationTypes.toDomain(d.validationType) ?? 'dns' });
    });
    if (added === 'created') success.domains.push(domain);
    if (added === 'failed') continue;
    if (d.isVerified) {
      const verified = async () => (await entry())?.isVerified === true;
      await run.item('domain_isverified', `${orgId}_${domain}`, verified, async () => {
        // The source verified the domain; the import trusts it (as the reference does).
        const token = randomBytes(16).toString('base64url');
        await ask(addOrgDomainVerification, { orgId, domain, token });
        await ask(verifyOrgDomain, { orgId, domain, token });
      });
    }
    if (d.isPrimary) {
      await run.item('domain_isprimary', `${orgId}_${domain}`, async () => (await org())?.state.primaryDomain === domain, async () => {
        await ask(setPrimaryOrgDomain, { orgId, domain });
      });
    }
  }

  await importOrgSettings(run, data);

  const ownUser = async (userId: string) => (await actors.readRecord(instanceId, userKind, userId))?.state.orgId === orgId;
  const ownUsers = async (userIds: readonly string[]) => (await actors.readRecords(instanceId, userKind, userIds)).map((u) => u?.state.orgId === orgId);
  const humans = data.humanUsers ?? [];
  for (let from = 0; from < humans.length; from += HUMANS_PER_APPEND) {
    const group = humans.slice(from, from + HUMANS_PER_APPEND);
    const outcomes = await run.items(
      'human_user',
      group.map((h) => ({ id: h.userId, command: () => humanCommand(h, orgId) })),
      {
        exist: ownUsers,
        send: (commands) => actors.askEach({ kind: 'org', instanceId, orgId }, addHumanUser, commands, { creator: run.deps.creator }),
      },
    );
    for (const [i, h] of group.entries()) {
      const outcome = outcomes[i]!;
      if (outcome === 'created') success.humanUserIds.push(h.userId);
      const otpCode = h.user.otpCode;
      if (otpCode !== undefined && otpCode !== '' && outcome !== 'failed') {
        const hasTotp = async () => {
          const user = (await actors.readRecord(instanceId, userKind, h.userId))?.state;
          return user?.type === 'human' && user.totp?.verified === true;
        };
        await run.item('human_user_otp', h.userId, hasTotp, async () => {
          checkItem(otpItem, { otpCode }, 'user');
          if (!(await ownUser(h.userId))) throw invalidArgument('import.user_not_in_org', 'the OTP names a user of another organization');
          await ask(importTotp, { orgId, userId: h.userId, secret: otpCode.replace(/=+$/, '') });
        });
      }
    }
  }

  for (const m of data.machineUsers ?? []) {
    const outcome = await run.item('machine_user', m.userId, () => ownUser(m.userId), async () => {
      checkItem(machineItem, m.user, 'user');
      const accessTokenType = enumOf(userTokenTypes, m.user.accessTokenType, 'bearer', 'accessTokenType');
      await ask(addMachineUser, { userId: m.userId, orgId, username: m.user.userName, name: m.user.name, description: m.user.description, accessTokenType });
    });
    if (outcome === 'created') success.machineUserIds.push(m.userId);
  }

  for (const md of data.userMetadata ?? []) {
    const has = async () => (await actors.readRecord(instanceId, userKind, md.id))?.state.metadata.some((e) => e.key === md.key && e.value === md.value) ?? false;
    const outcome = await run.item('user_metadata', `${md.id}_${md.key}`, has, async () => {
      checkItem(metadataItem, md, 'userMetadata');
      if (!(await ownUser(md.id))) throw invalidArgument('import.user_not_in_org', 'the metadata names a user of another organization');
      await ask(setUserMetadata, { orgId, userId: md.id, key: md.key, value: md.value });
    });
    if (outcome === 'created') success.userMetadata.push({ userId: md.id, key: md.key });
  }

  // After the users and the org's IDPs (importOrgSettings): the IDP must exist on the target.
  for (const l of data.userLinks ?? []) {
    const user = async () => (await actors.readRecord(instanceId, userKind, l.userId))?.state;
    const has = async () => {
      const u = await user();
      return u?.type === 'human' && (u.idpLinks ?? []).some((x) => x.idpId === l.idpId && x.externalUserId === l.providedUserId);
    };
    const outcome = await run.item('user_link', `${l.userId}_${l.idpId}_${l.providedUserId}`, has, async () => {
      if (!(await ownUser(l.userId))) throw invalidArgument('import.user_not_in_org', 'the link names a user of another organization');
      if ((await actors.readRecord(instanceId, idpKind, l.idpId)) === undefined) throw invalidArgument('import.idp_not_found', `the identity provider ${l.idpId} does not exist on the target (instance IDPs are not exported)`);
      await ask(addUserIdpLink, { orgId, userId: l.userId, link: { idpId: l.idpId, externalUserId: l.providedUserId, externalUsername: l.providedUserName } });
    });
    if (outcome === 'created') success.userLinks.push({ userId: l.userId, externalUserId: l.providedUserId, displayName: l.providedUserName, idpId: l.idpId });
  }

  const project = (projectId: string) => actors.readRecord(instanceId, projectKind, projectId);
  for (const p of data.projects ?? []) {
    const outcome = await run.item('project', p.projectId, async () => (await project(p.projectId))?.state.orgId === orgId, async () => {
      checkItem(namedItem, p.project, 'project');
      await ask(createProject, { projectId: p.projectId, orgId, name: p.project.name, projectRoleAssertion: p.project.projectRoleAssertion, projectRoleCheck: p.project.projectRoleCheck, hasProjectCheck: p.project.hasProjectCheck });
    });
    if (outcome === 'created') success.projectIds.push(p.projectId);
  }

  for (const r of data.projectRoles ?? []) {
    const has = async () => (await project(r.projectId))?.state.roles.some((x) => x.key === r.roleKey) ?? false;
    const outcome = await run.item('project_role', `${r.projectId}_${r.roleKey}`, has, async () => {
      checkItem(roleItem, r, 'projectRole');
      await ask(addProjectRole, { projectId: r.projectId, orgId, key: r.roleKey, displayName: r.displayName, group: r.group });
    });
    if (outcome === 'created') success.projectRoles.push(r.roleKey);
  }

  const apps = [
    ...(data.oidcApps ?? []).map((a) => ({ type: 'oidc_app', appId: a.appId, projectId: a.app.projectId, name: a.app.name, config: () => oidcConfigOf(a) })),
    ...(data.apiApps ?? []).map((a) => ({
      type: 'api_app',
      appId: a.appId,
      projectId: a.app.projectId,
      name: a.app.name,
      config: (): AppConfig => ({ type: 'api', api: { authMethod: enumOf(apiAuthMethodNames, a.app.authMethodType, 'basic', 'authMethodType') } }),
    })),
  ];
  for (const a of apps) {
    let clientId = '';
    let clientSecret = '';
    const has = async () => {
      const app = await actors.readRecord(instanceId, applicationKind, a.appId);
      clientId = app?.state.clientId ?? '';
      return app !== undefined && app.state.orgId === orgId;
    };
    const outcome = await run.item(a.type, a.appId, has, async () => {
      checkItem(namedItem, a, 'app');
      const secret = randomSecret();
      const created = await ask(createApp, { appId: a.appId, orgId, projectId: a.projectId, name: a.name, config: a.config(), secretDigest: clientSecretDigest(secret) });
      clientId = created.clientId;
      if (created.secretStored) clientSecret = secret;
    });
    if (outcome === 'created') (a.type === 'oidc_app' ? success.oidcAppIds : success.apiAppIds).push(a.appId);
    if (outcome !== 'failed') success.appClientIds.push({ appId: a.appId, clientId, ...(clientSecret === '' ? {} : { clientSecret }) });
  }
  return true;
}

/**
 * Human users checked together (one read of their rows), decided together (their aggregates
 * read at once, run-command.ts `preload`) and written in one store append (ActorSystem.askEach):
 * a few round trips and one write transaction per group instead of three reads and a
 * transaction per user; a user that fails still fails alone.
 */
const HUMANS_PER_APPEND = 100;

/** The addHumanUser command of a document's human user; throws when the item is invalid. */
function humanCommand(h: DataHumanUser, orgId: string): AddHumanUser {
  const u = h.user;
  checkItem(humanItem, u, 'user');
  return {
    userId: h.userId,
    orgId,
    username: u.userName,
    givenName: u.profile.firstName,
    familyName: u.profile.lastName,
    ...(u.profile.displayName === '' ? {} : { displayName: u.profile.displayName }),
    nickname: u.profile.nickName,
    preferredLanguage: u.profile.preferredLanguage,
    gender: enumOf(genders, u.profile.gender, 'unspecified', 'gender'),
    email: { address: u.email.email, verified: u.email.isEmailVerified },
    ...(u.phone === undefined ? {} : { phone: { number: u.phone.phone, verified: u.phone.isPhoneVerified } }),
    passwordHash: u.hashedPassword?.value ?? '',
    passwordChangeRequired: u.passwordChangeRequired,
  };
}

function oidcConfigOf(a: DataOidcApp): AppConfig {
  const c = a.app;
  const clockSkewMs = durationToMs(c.clockSkew);
  if (clockSkewMs === undefined) throw invalidArgument('import.value_invalid', 'clockSkew is not a duration');
  const oidc: OidcConfig = {
    appType: enumOf(appTypeNames, c.appType, 'web', 'appType'),
    redirectUris: c.redirectUris,
    postLogoutRedirectUris: c.postLogoutRedirectUris,
    responseTypes: c.responseTypes.map((t) => enumOf(responseTypeNames, t, 'code', 'responseTypes')),
    grantTypes: c.grantTypes.map((t) => enumOf(grantTypeNames, t, 'authorization_code', 'grantTypes')),
    authMethod: enumOf(oidcAuthMethodNames, c.authMethodType, 'basic', 'authMethodType'),
    accessTokenType: enumOf(oidcTokenTypeNames, c.accessTokenType, 'bearer', 'accessTokenType'),
    idTokenUserinfoAssertion: c.idTokenUserinfoAssertion,
    idTokenRoleAssertion: c.idTokenRoleAssertion,
    accessTokenRoleAssertion: c.accessTokenRoleAssertion,
    clockSkewMs,
    devMode: c.devMode,
    additionalOrigins: c.additionalOrigins,
    skipNativeAppSuccessPage: c.skipNativeAppSuccessPage,
  };
  return { type: 'oidc', oidc };
}
