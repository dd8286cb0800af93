/**
 * The source tenant of the export/import suite: two organizations populated through the APIs
 * with every kind of object the export holds (and some that are not active).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { ActorSystem, addUserIdpLink, createIdGenerator, systemClock, UNIQUE_SCOPES, type IdpLink } from '../../actors/index.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import type { api, TestNode } from './harness.js';
import { openNodeStore } from './node-store.fixture.js';
import { readSetup } from './seed.fixture.js';

const R = '/resources/v3alpha';
export const PASSWORD = 'Secr3tPassword';
export const IDP_SECRET = 'forge-secret-value-42';

type Call = ReturnType<typeof api>;

const expectStatus = (response: { status: number; body: unknown }, status: number) => expect(response.status, JSON.stringify(response.body)).toBe(status);

const human = (username: string, extra: Record<string, unknown> = {}) => ({
  human: { username, profile: { givenName: username, familyName: 'Export', nickName: `${username}-nick` }, email: { address: `${username}@example.com`, isVerified: true }, ...extra },
});

/** Creates the objects on `first` (the first instance); returns their ids by name (and the PAT as `patSecret`). */
export async function populateSource(first: Call): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const created = async (path: string, body: unknown): Promise<string> => {
    const response = await first('POST', path, body);
    expectStatus(response, 201);
    return response.body.details.id;
  };
  ids.orgA = await created(`${R}/organizations`, { name: 'Export Source' });
  ids.orgB = await created(`${R}/organizations`, { name: 'Export Partner' });
  const inA = `?ctx.orgId=${ids.orgA}`;
  ids.alice = await created(`${R}/users${inA}`, human('alice', { password: PASSWORD, phone: { number: '+41791234567', isVerified: true } }));
  ids.carol = await created(`${R}/users${inA}`, human('carol'));
  ids.dave = await created(`${R}/users?ctx.orgId=${ids.orgB}`, human('dave', { password: PASSWORD }));
  ids.bot = await created(`${R}/users${inA}`, { machine: { username: 'export-bot', name: 'Export bot', description: 'a service user' } });
  const pat = await first('POST', `${R}/users/${ids.bot}/tokens`, {});
  expectStatus(pat, 201);
  ids.patSecret = pat.body.token;
  expectStatus(await first('PUT', `${R}/users/${ids.alice}/metadata/color`, { value: Buffer.from('blue').toString('base64') }), 200);
  ids.project = await created(`${R}/projects${inA}`, { name: 'Export Project', projectRoleAssertion: true });
  for (const key of ['admin', 'reader']) await created(`${R}/projects/${ids.project}/roles`, { key, displayName: `The ${key}`, group: 'g' });
  const web = await first('POST', `${R}/apps`, {
    projectId: ids.project,
    name: 'Web',
    oidc: { appType: 'OIDC_APP_TYPE_WEB', redirectUris: ['https://app.example.com/cb'], responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'], authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC', clockSkew: '1.5s' },
  });
  expectStatus(web, 201);
  ids.web = web.body.details.id;
  ids.api = await created(`${R}/apps`, { projectId: ids.project, name: 'Api', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
  ids.projectGrant = await created(`${R}/project_grants`, { projectId: ids.project, grantedOrgId: ids.orgB, roleKeys: ['reader'] });
  ids.aliceGrant = await created(`${R}/user_grants`, { userId: ids.alice, projectId: ids.project, roleKeys: ['admin', 'reader'] });
  ids.daveGrant = await created(`${R}/user_grants`, { userId: ids.dave, projectId: ids.project, projectGrantId: ids.projectGrant, roleKeys: ['reader'] });
  ids.orgMember = await created(`${R}/memberships`, { orgId: ids.orgA, userId: ids.alice, roles: ['ORG_OWNER'] });
  ids.projectMember = await created(`${R}/memberships`, { projectId: ids.project, userId: ids.carol, roles: ['PROJECT_OWNER'] });
  ids.domain = await created(`${R}/domains${inA}`, { domain: 'export-a.example.com' });
  // not active: a locked and a deactivated user, a deactivated project (with a role) and user grant
  ids.erin = await created(`${R}/users${inA}`, human('erin', { password: PASSWORD }));
  ids.frank = await created(`${R}/users${inA}`, { machine: { username: 'frank', name: 'Frank' } });
  ids.oldProject = await created(`${R}/projects${inA}`, { name: 'Old Project' });
  await created(`${R}/projects/${ids.oldProject}/roles`, { key: 'old', displayName: 'Old' });
  ids.oldGrant = await created(`${R}/user_grants`, { userId: ids.erin, projectId: ids.oldProject, roleKeys: ['old'] });
  for (const path of [`users/${ids.erin}/_lock`, `users/${ids.frank}/_deactivate`, `user_grants/${ids.oldGrant}/_deactivate`, `projects/${ids.oldProject}/_deactivate`]) {
    expectStatus(await first('POST', `${R}/${path}`), 200);
  }
  // organization-level: an identity provider it defines, its own language, text and branding settings, its lockout threshold
  ids.idp = await created(`${R}/idps/forge${inA}`, {
    idp: { name: 'Org Forge', options: { isManualLinkingAllowed: true, autoLinking: 'AUTO_LINKING_OPTION_EMAIL' } },
    config: { clientId: 'forge-client', clientSecret: IDP_SECRET, scopes: ['openid', 'email'] },
  });
  const languages = await first('PATCH', `/settings/v3alpha/languages${inA}`, { defaultLanguage: { key: 'de' }, restrictedLanguages: { languages: [{ key: 'de' }, { key: 'en' }] } });
  expectStatus(languages, 200);
  expectStatus(await first('PATCH', `/settings/v3alpha/texts/en${inA}`, { texts: { loginNameIntro: { set: 'Welcome to Export Source.' } } }), 200);
  expectStatus(await first('PATCH', `/settings/v3alpha/branding${inA}`, { primaryColor: { set: '#112233' }, disableWatermark: { set: true } }), 200);
  expectStatus(await first('PATCH', `/settings/v3alpha/users${inA}`, { maxPasswordAttempts: 3 }), 200);
  return ids;
}

/**
 * Links a human user to an external identity, as an external login would. No API adds links,
 * so this one seed runs the domain command on the node's store (LMDB or PostgreSQL) beside it.
 */
export async function seedIdpLink(node: TestNode, orgId: string, userId: string, link: IdpLink): Promise<void> {
  const { instanceId } = await readSetup(node);
  const store = await openNodeStore(node);
  const actors = new ActorSystem({
    store,
    clock: systemClock,
    ids: createIdGenerator(() => Date.now()),
    sealer: createSecretSealer(randomBytes(32)),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    uniqueScopes: UNIQUE_SCOPES,
  });
  try {
    await actors.ask({ kind: 'org', instanceId, orgId }, addUserIdpLink, { orgId, userId, link }, { creator: '' });
  } finally {
    await actors.stop();
    await store.close();
  }
}
