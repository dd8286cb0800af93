/**
 * /admin/v1/export and /admin/v1/import (seed 001, docs/api/export-import.md): populate two
 * organizations through the APIs, export them (with password hashes), import them into a
 * second instance, compare every object through the APIs (one by one and every list), log in
 * there through the OIDC code flow (Chromium + openid-client) with the original password and
 * the imported app, import again (nothing new), a failed organization leaves nothing behind,
 * and the exclusions, bad input and permissions.
 */
import { request as httpRequest } from 'node:http';
import * as oidc from 'openid-client';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_PATH, itIfMet, meet } from '../requirements.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';
import { IDP_SECRET, PASSWORD, populateSource, seedIdpLink } from './export-import.fixture.js';

const R = '/resources/v3alpha';
const chromiumReady = await meet(CHROMIUM);
let node: TestNode;
let first: ReturnType<typeof api>;
let second: ReturnType<typeof api>;
let secondHost: string;
let secondToken: string;
let secondId: string;
let system: ReturnType<typeof systemApi>;
let patSecret: string;
let document: string;
const ids: Record<string, string> = {};

const expectStatus = (response: { status: number; body: unknown }, status: number) => expect(response.status, JSON.stringify(response.body)).toBe(status);

async function created(path: string, body: unknown): Promise<string> {
  const response = await first('POST', path, body);
  expectStatus(response, 201);
  return response.body.details.id;
}

beforeAll(async () => {
  const ops = await createSystemUserKey('ops');
  node = await startTestNode({ env: { TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]), TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api,multitenancy_settings' } });
  first = api(node);
  system = systemApi(node, ops);
  const instance = await system('POST', `${R}/instances`, { name: 'Target', domain: 'second.test', admin: { username: 'target-admin' } });
  expectStatus(instance, 201);
  secondHost = `second.test:${node.httpPort}`;
  secondToken = instance.body.adminToken;
  secondId = instance.body.details.id;
  const onSecond = api(node, secondToken);
  second = (method, path, body, headers = {}) => onSecond(method, path, body, { host: secondHost, ...headers });

  Object.assign(ids, await populateSource(first));
  patSecret = ids.patSecret!;
  // No API adds IDP links (external logins do): seed one on alice through the domain.
  await seedIdpLink(node, ids.orgA!, ids.alice!, { idpId: ids.idp!, externalUserId: 'forge-4711', externalUsername: 'alice@forge.example' });

  const exported = await first('POST', '/admin/v1/export', { org_ids: [ids.orgA, ids.orgB], with_passwords: true, response_output: true, timeout: '1m' });
  expectStatus(exported, 200);
  document = JSON.stringify(exported.body);
});

afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const importBody = (data: unknown = document) => ({ timeout: '5m', data_orgsv1: data });

/** A fetch for openid-client that reaches the node over node:http with the URL's Host header. */
function viaHost(url: URL, options: oidc.CustomFetchOptions): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...Object.fromEntries(new Headers(options.headers)), host: url.host };
    const req = httpRequest({ host: '127.0.0.1', port: node.httpPort, method: options.method, path: url.pathname + url.search, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: responseHeaders }));
      });
    });
    req.on('error', reject);
    req.end(options.body === undefined || options.body === null ? undefined : String(options.body));
  });
}

describe('export', () => {
  it('holds both organizations with their objects, hashes only with with_passwords', () => {
    const doc = JSON.parse(document);
    expect(doc.orgs.map((o: any) => o.orgId)).toEqual([ids.orgA, ids.orgB]);
    const a = doc.orgs[0];
    expect(a.org).toEqual({ name: 'Export Source' });
    const alice = a.humanUsers.find((u: any) => u.userId === ids.alice);
    expect(alice.user).toMatchObject({ userName: 'alice', profile: { firstName: 'alice', lastName: 'Export', nickName: 'alice-nick' }, email: { email: 'alice@example.com', isEmailVerified: true } });
    expect(alice.user.hashedPassword.value).toMatch(/^\$argon2id\$/);
    expect(a.humanUsers.find((u: any) => u.userId === ids.carol).user.hashedPassword).toBeUndefined();
    expect(a.machineUsers.find((u: any) => u.userId === ids.bot)).toEqual({ userId: ids.bot, user: { userName: 'export-bot', name: 'Export bot', description: 'a service user', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' } });
    expect(a.machineUsers.find((u: any) => u.userId === ids.frank).state).toBe('USER_STATE_INACTIVE');
    expect(a.userMetadata).toEqual([{ id: ids.alice, key: 'color', value: Buffer.from('blue').toString('base64') }]);
    expect(a.projectRoles.map((r: any) => r.roleKey).sort()).toEqual(['admin', 'old', 'reader']);
    expect(a.oidcApps[0].app).toMatchObject({ name: 'Web', clockSkew: '1.5s', authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' });
    expect(a.projectGrants).toEqual([{ grantId: ids.projectGrant, projectGrant: { projectId: ids.project, grantedOrgId: ids.orgB, roleKeys: ['reader'] } }]);
    expect(a.userGrants).toHaveLength(2);
    expect(a.humanUsers.find((u: any) => u.userId === ids.erin).state).toBe('USER_STATE_LOCKED');
    expect(a.projects.find((p: any) => p.projectId === ids.oldProject).state).toBe('PROJECT_STATE_INACTIVE');
    expect(alice.state).toBeUndefined();
    expect(doc.orgs[1].userGrants).toEqual([{ userId: ids.dave, projectId: ids.project, projectGrantId: ids.projectGrant, roleKeys: ['reader'], grantId: ids.daveGrant }]);
    expect(a.orgMembers).toEqual([{ userId: ids.alice, roles: ['ORG_OWNER'] }]);
    expect(a.projectMembers).toEqual([{ projectId: ids.project, userId: ids.carol, roles: ['PROJECT_OWNER'] }]);
    expect(a.domains.map((d: any) => d.domainName)).toContain('export-a.example.com');
    expect(a.languageSettings).toEqual({ defaultLanguage: 'de', restrictedLanguages: ['de', 'en'] });
    expect(a.textSettings).toEqual([{ language: 'en', texts: { loginNameIntro: 'Welcome to Export Source.' } }]);
    expect(a.brandingSettings).toEqual({ primaryColor: '#112233', disableWatermark: true });
    expect(a.lockoutPolicy).toEqual({ maxPasswordAttempts: '3' });
    expect(doc.orgs[1].lockoutPolicy).toBeUndefined();
    expect(a.userLinks).toEqual([{ userId: ids.alice, idpId: ids.idp, idpName: 'Org Forge', providedUserId: 'forge-4711', providedUserName: 'alice@forge.example', idpType: 'IDP_TYPE_FORGE' }]);
    expect(a.forgeIdps).toEqual([
      {
        idpId: ids.idp,
        idp: {
          name: 'Org Forge',
          idpType: 'IDP_TYPE_FORGE',
          policy: 'STATE_POLICY_ACTIVATE',
          options: { isManualLinkingAllowed: true, isManualCreationAllowed: false, isAutoCreation: false, isAutoUpdate: false, autoLinking: 'AUTO_LINKING_OPTION_EMAIL' },
          clientId: 'forge-client',
          clientSecret: IDP_SECRET,
          scopes: ['openid', 'email'],
          issuer: '',
        },
      },
    ]);
  });

  it('never holds machine keys, PATs, app keys or secrets', () => {
    for (const word of ['machineKeys', 'appKeys', 'tokens', 'secretDigest', 'otpCode', patSecret]) expect(document).not.toContain(word);
  });

  it('leaves hashes out without with_passwords, and exports every org when org_ids is empty', async () => {
    const plain = await first('POST', '/admin/v1/export', { responseOutput: true, excludedOrgIds: [ids.orgB] });
    expectStatus(plain, 200);
    expect(JSON.stringify(plain.body)).not.toContain('hashedPassword');
    const orgIds = plain.body.orgs.map((o: any) => o.orgId);
    expect(orgIds).toContain(ids.orgA);
    expect(orgIds).not.toContain(ids.orgB);
  });
});

describe('import into a second instance', () => {
  let result: any;
  beforeAll(async () => {
    const imported = await second('POST', '/admin/v1/import', importBody());
    expectStatus(imported, 200);
    result = imported.body;
  });

  it('creates everything with its original id and reports counts and client ids', () => {
    expect(result.errors).toEqual([]);
    expect(result.counts).toMatchObject({
      org: { created: 2, skipped: 0, failed: 0 },
      human_user: { created: 4 },
      machine_user: { created: 2 },
      user_metadata: { created: 1 },
      project: { created: 2 },
      project_role: { created: 3 },
      oidc_app: { created: 1 },
      api_app: { created: 1 },
      project_grant: { created: 1 },
      user_grant: { created: 3 },
      org_member: { created: 1 },
      project_member: { created: 1 },
      idp: { created: 1 },
      language_settings: { created: 1 },
      text_settings: { created: 1 },
      branding_settings: { created: 1 },
      lockout_policy: { created: 1 },
      user_link: { created: 1 },
      user_state: { created: 2 },
      user_grant_state: { created: 1 },
      project_state: { created: 1 },
    });
    const a = result.success.orgs.find((o: any) => o.orgId === ids.orgA);
    expect(a.humanUserIds.sort()).toEqual([ids.alice, ids.carol, ids.erin].sort());
    expect(a.appClientIds.map((c: any) => c.appId).sort()).toEqual([ids.web, ids.api].sort());
    expect(a.appClientIds.every((c: any) => typeof c.clientSecret === 'string' && c.clientSecret.length > 20)).toBe(true);
  });

  it('gives imported apps a new secret that authenticates on the target', async () => {
    const client = result.success.orgs.find((o: any) => o.orgId === ids.orgA).appClientIds.find((c: any) => c.appId === ids.api);
    const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64');
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` };
    const introspected = await second('POST', '/oauth/v2/introspect', 'token=unknown', form);
    expectStatus(introspected, 200);
    expect(introspected.body.active).toBe(false);
    const forged = await second('POST', '/oauth/v2/introspect', 'token=unknown', { ...form, authorization: `Basic ${Buffer.from(`${client.clientId}:wrong`).toString('base64')}` });
    expect(forged.status).toBe(401);
  });

  const strip = (value: any): any =>
    Array.isArray(value)
      ? value.map(strip)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).filter(([k]) => !['details', 'loginNames', 'creationDate', 'changeDate', 'sequence', 'passwordChanged'].includes(k)).map(([k, v]) => [k, strip(v)]))
        : value;

  it.each([
    ['organization A', () => `${R}/organizations/${ids.orgA}`],
    ['organization B', () => `${R}/organizations/${ids.orgB}`],
    ['alice', () => `${R}/users/${ids.alice}`],
    ['carol', () => `${R}/users/${ids.carol}`],
    ['dave', () => `${R}/users/${ids.dave}`],
    ['the machine user', () => `${R}/users/${ids.bot}`],
    ['a locked user', () => `${R}/users/${ids.erin}`],
    ['a deactivated user', () => `${R}/users/${ids.frank}`],
    ['a deactivated project', () => `${R}/projects/${ids.oldProject}`],
    ['a deactivated user grant', () => `${R}/user_grants/${ids.oldGrant}`],
    ['metadata', () => `${R}/users/${ids.alice}/metadata`],
    ['the project', () => `${R}/projects/${ids.project}`],
    ['the OIDC app', () => `${R}/apps/${ids.web}`],
    ['the API app', () => `${R}/apps/${ids.api}`],
    ['the project grant', () => `${R}/project_grants/${ids.projectGrant}`],
    ['alice’s user grant', () => `${R}/user_grants/${ids.aliceGrant}`],
    ['dave’s user grant', () => `${R}/user_grants/${ids.daveGrant}`],
    ['the org member', () => `${R}/memberships/${ids.orgMember}`],
    ['the project member', () => `${R}/memberships/${ids.projectMember}`],
    ['the added domain', () => `${R}/domains/export-a.example.com?ctx.orgId=${ids.orgA}`],
    ['the org IDP', () => `${R}/idps/forge/${ids.idp}?ctx.orgId=${ids.orgA}`],
    ['the org language settings', () => `/settings/v3alpha/languages?ctx.orgId=${ids.orgA}`],
    ['the org login texts', () => `/settings/v3alpha/texts/en?ctx.orgId=${ids.orgA}`],
    ['the org branding', () => `/settings/v3alpha/branding?ctx.orgId=${ids.orgA}`],
    ['the org lockout threshold', () => `/settings/v3alpha/users?ctx.orgId=${ids.orgA}`],
  ])('keeps %s field by field', async (_, path) => {
    const source = await first('GET', path());
    const target = await second('GET', path());
    expectStatus(source, 200);
    expectStatus(target, 200);
    expect(strip(target.body)).toEqual(strip(source.body));
  });

  it('keeps the project roles', async () => {
    const roles = async (call: typeof first) => strip((await call('POST', `${R}/projects/${ids.project}/roles/_search`, [])).body.result);
    expect(await roles(second)).toEqual(await roles(first));
  });

  it.each(['users', 'projects', 'apps', 'project_grants', 'user_grants', 'memberships', 'idps'])('lists the same %s in both organizations', async (kind) => {
    let listed = 0;
    for (const org of [ids.orgA, ids.orgB]) {
      const list = async (call: typeof first) => {
        const response = await call('POST', `${R}/${kind}/_search?ctx.orgId=${org}`, []);
        expectStatus(response, 200);
        const byId = (x: any) => JSON.stringify(x.details?.id ?? x);
        return strip([...(response.body.result ?? [])].sort((a, b) => byId(a).localeCompare(byId(b))));
      };
      const source = await list(first);
      listed += source.length;
      expect(await list(second)).toEqual(source);
    }
    expect(listed, `some ${kind} to compare`).toBeGreaterThan(0);
  });

  itIfMet(chromiumReady, 'logs an imported user in through the OIDC code flow of the imported app, with the original password', async () => {
    const org = (await second('GET', `${R}/organizations/${ids.orgA}`)).body;
    const domain = org.organization?.primaryDomain ?? org.organization?.organization?.primaryDomain;
    const client = result.success.orgs.find((o: any) => o.orgId === ids.orgA).appClientIds.find((c: any) => c.appId === ids.web);
    const issuer = new URL(`http://${secondHost}`);
    // Node's fetch cannot send another Host: openid-client talks to the target over node:http.
    const config = await oidc.discovery(issuer, client.clientId, client.clientSecret, oidc.ClientSecretBasic(client.clientSecret), {
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: (url, options) => viaHost(new URL(url), options),
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authorize = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://app.example.com/cb',
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    // Chromium resolves the target instance's host to this node; the imported app's redirect
    // URI (https://app.example.com/cb) is caught by the page and never leaves the machine.
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', `--host-resolver-rules=MAP second.test 127.0.0.1`] });
    try {
      const page = await (await browser.newContext()).newPage();
      let callback: string | undefined;
      await page.route('https://app.example.com/**', (route) => {
        callback = route.request().url();
        return route.fulfill({ status: 200, body: 'callback' });
      });
      await page.goto(authorize.toString());
      await page.fill('input[name=loginName]', `alice@${domain}`);
      await page.click('button[type=submit]');
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForURL('https://app.example.com/**');
      const tokens = await oidc.authorizationCodeGrant(config, new URL(callback!), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
      expect(tokens.claims()).toMatchObject({ iss: issuer.origin, sub: ids.alice, azp: client.clientId, amr: ['pwd'] });
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, ids.alice!);
      expect(userinfo).toMatchObject({ sub: ids.alice, email: 'alice@example.com', email_verified: true, given_name: 'alice', family_name: 'Export' });
    } finally {
      await browser.close();
    }
  });

  it('lets an imported user log in with the original password', async () => {
    const org = (await second('GET', `${R}/organizations/${ids.orgA}`)).body;
    const domain = org.organization?.primaryDomain ?? org.organization?.organization?.primaryDomain;
    const session = await second('POST', `${R}/sessions`, { checks: { user: { loginName: `alice@${domain}` }, password: { password: PASSWORD } } });
    expectStatus(session, 201);
    const wrong = await second('POST', `${R}/sessions`, { checks: { user: { userId: ids.dave }, password: { password: 'nope-Nope-1' } } });
    expect(wrong.status).toBe(400);
  });

  it('exports the same document from the target (but for the target’s own generated domains)', async () => {
    const again = await second('POST', '/admin/v1/export', { org_ids: [ids.orgA, ids.orgB], with_passwords: true, response_output: true });
    expectStatus(again, 200);
    const source = JSON.parse(document);
    const own = (d: any) => d.domainName.endsWith('.second.test');
    for (const org of again.body.orgs) org.domains = org.domains.filter((d: any) => !own(d));
    expect(again.body).toEqual(source);
  });

  it('creates nothing when run again', async () => {
    const again = await second('POST', '/admin/v1/import', importBody(JSON.parse(document)));
    expectStatus(again, 200);
    expect(again.body.errors).toEqual([]);
    for (const [type, counts] of Object.entries<any>(again.body.counts)) {
      expect({ type, created: counts.created, failed: counts.failed }).toEqual({ type, created: 0, failed: 0 });
    }
    expect(again.body.counts.human_user.skipped).toBe(4);
    expect(again.body.counts.user_state).toEqual({ created: 0, skipped: 2, failed: 0 });
  });

  it('skips an organization whose creation fails, with everything in it', async () => {
    expectStatus(await second('POST', `${R}/organizations`, { name: 'Taken Name' }), 201);
    const doc = { orgs: [{ orgId: 'clash-org', org: { name: 'Taken Name' }, machineUsers: [{ userId: 'clash-user', user: { userName: 'clash', name: 'Clash' } }] }] };
    const response = await second('POST', '/admin/v1/import', importBody(JSON.stringify(doc)));
    expectStatus(response, 200);
    expect(response.body.errors).toEqual([expect.objectContaining({ type: 'org', id: 'clash-org', code: 'org.name_taken' })]);
    expect(response.body.counts.machine_user).toBeUndefined();
    expect((await second('GET', `${R}/users/clash-user`)).status).toBe(404);
  });

  it('leaves no half-created object behind: a failing object and everything hanging off it are absent', async () => {
    const human = (userId: string, userName: string) => ({ userId, user: { userName, profile: { firstName: 'H', lastName: 'C' }, email: { email: `${userId}@example.com` }, hashedPassword: { value: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g' } } });
    const doc = {
      orgs: [
        {
          orgId: 'half-org',
          org: { name: 'Half Org' },
          // the second user takes the first one's username: it fails, as does all that names it
          humanUsers: [human('half-ok', 'half'), human('half-dup', 'half')],
          userMetadata: [{ id: 'half-dup', key: 'k', value: Buffer.from('v').toString('base64') }],
          // a project over the name limit fails, with its role, app and grants
          projects: [{ projectId: 'half-project', project: { name: 'p'.repeat(201) } }, { projectId: 'half-good', project: { name: 'Half Good' } }],
          projectRoles: [{ projectId: 'half-project', roleKey: 'r' }, { projectId: 'half-good', roleKey: 'r' }],
          oidcApps: [{ appId: 'half-app', app: { projectId: 'half-project', name: 'Half App', redirectUris: ['https://half.example.com/cb'], responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'], appType: 'OIDC_APP_TYPE_WEB', authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' } }],
          userGrants: [
            { userId: 'half-dup', projectId: 'half-good', roleKeys: ['r'], grantId: 'half-grant-dup' },
            { userId: 'half-ok', projectId: 'half-project', roleKeys: ['r'], grantId: 'half-grant-project' },
          ],
          orgMembers: [{ userId: 'half-dup', roles: ['ORG_OWNER'] }],
          projectMembers: [{ projectId: 'half-good', userId: 'half-dup', roles: ['PROJECT_OWNER'] }],
        },
      ],
    };
    const response = await second('POST', '/admin/v1/import', importBody(doc));
    expectStatus(response, 200);
    const failed = response.body.errors.map((e: any) => `${e.type}:${e.id}`).sort();
    expect(failed).toEqual(
      [
        'human_user:half-dup',
        'user_metadata:half-dup_k',
        'project:half-project',
        'project_role:half-project_r',
        'oidc_app:half-app',
        'user_grant:half-dup_half-good',
        'user_grant:half-ok_half-project',
        'org_member:half-org_half-dup',
        'project_member:half-org_half-good_half-dup',
      ].sort(),
    );
    for (const path of [`${R}/users/half-dup`, `${R}/projects/half-project`, `${R}/apps/half-app`, `${R}/user_grants/half-grant-dup`, `${R}/user_grants/half-grant-project`]) {
      expect((await second('GET', path)).status, path).toBe(404);
    }
    const listed = async (kind: string) => ((await second('POST', `${R}/${kind}/_search?ctx.orgId=half-org`, [])).body.result ?? []).map((x: any) => x.details.id).sort();
    expect(await listed('users')).toEqual(['half-ok']);
    expect(await listed('projects')).toEqual(['half-good']);
    expect(await listed('apps')).toEqual([]);
    expect(await listed('user_grants')).toEqual([]);
    expect(await listed('memberships')).toEqual([]);
    // the user that was created is whole: profile, email and password hash in its one event
    expect((await second('GET', `${R}/users/half-ok`)).body.user).toMatchObject({ username: 'half', human: { email: { address: 'half-ok@example.com' }, passwordSet: true } });
  });

  it('fails single objects that break the API rules and goes on', async () => {
    const user = (userId: string, email: string) => ({ userId, user: { userName: userId, profile: { firstName: 'V', lastName: 'W' }, email: { email } } });
    const doc = { orgs: [{ orgId: 'rules-org', org: { name: 'Rules Org' }, humanUsers: [user('good-user', 'g@example.com'), user('bad-user', 'not-an-email')] }] };
    const response = await second('POST', '/admin/v1/import', importBody(doc));
    expectStatus(response, 200);
    expect(response.body.errors).toEqual([{ type: 'human_user', id: 'bad-user', code: 'import.value_invalid', message: expect.stringContaining('user.email.email') }]);
    expect(response.body.counts.human_user).toEqual({ created: 1, skipped: 0, failed: 1 });
  });

  it('imports many users of one organization in groups where a bad user fails alone: an invalid one, a taken username, an id twice (skipped)', async () => {
    const user = (i: number, over: { userId?: string; userName?: string; email?: string } = {}) => ({
      userId: over.userId ?? `bulk-${i}`,
      user: { userName: over.userName ?? `bulk-${i}`, profile: { firstName: 'B', lastName: `U ${i}` }, email: { email: over.email ?? `bulk-${i}@example.com` } },
    });
    // 250 users: more than one group (the importer sends 100 at a time); the bad ones sit inside groups.
    const humanUsers = Array.from({ length: 250 }, (_, i) => {
      if (i === 5) return user(i, { email: 'not-an-email' });
      if (i === 140) return user(i, { userName: 'bulk-110' });
      if (i === 170) return user(160); // bulk-160 again, identical
      return user(i);
    });
    const doc = { orgs: [{ orgId: 'bulk-org', org: { name: 'Bulk Org' }, humanUsers }] };
    const response = await second('POST', '/admin/v1/import', importBody(doc));
    expectStatus(response, 200);
    expect(response.body.errors).toEqual([
      { type: 'human_user', id: 'bulk-5', code: 'import.value_invalid', message: expect.stringContaining('user.email.email') },
      { type: 'human_user', id: 'bulk-140', code: 'user.username_taken', message: expect.any(String) },
    ]);
    expect(response.body.counts.human_user).toEqual({ created: 247, skipped: 1, failed: 2 });
    expect(response.body.success.orgs[0].humanUserIds).toHaveLength(247);
    for (const id of ['bulk-0', 'bulk-99', 'bulk-100', 'bulk-110', 'bulk-160', 'bulk-249']) {
      expect((await second('GET', `${R}/users/${id}`)).body.user).toMatchObject({ username: id, human: { email: { address: `${id}@example.com` } } });
    }
    for (const id of ['bulk-5', 'bulk-140']) expect((await second('GET', `${R}/users/${id}`)).status).toBe(404);
    // Run again: every user exists, nothing is created (the two bad ones fail again).
    const again = await second('POST', '/admin/v1/import', importBody(doc));
    expectStatus(again, 200);
    expect(again.body.counts.human_user).toEqual({ created: 0, skipped: 248, failed: 2 });
  });

  it('fails a link to an IDP the target lacks, unknown login texts and branding properties, with reasons', async () => {
    const doc = {
      orgs: [
        {
          orgId: 'links-org',
          org: { name: 'Links Org' },
          textSettings: [{ language: 'en', texts: { noSuchText: 'x' } }],
          brandingSettings: { primaryColor: '#123456', sparkles: true },
          humanUsers: [{ userId: 'link-user', user: { userName: 'link-user', profile: { firstName: 'L', lastName: 'U' }, email: { email: 'l@example.com' } } }],
          userLinks: [{ userId: 'link-user', idpId: 'instance-idp-elsewhere', idpName: 'Elsewhere', providedUserId: 'ext-1', providedUserName: 'l@ext', idpType: 'IDP_TYPE_FORGE' }],
        },
      ],
    };
    const response = await second('POST', '/admin/v1/import', importBody(doc));
    expectStatus(response, 200);
    const byType = Object.fromEntries(response.body.errors.map((e: any) => [e.type, e]));
    expect(byType.user_link).toMatchObject({ code: 'import.idp_not_found', id: 'link-user_instance-idp-elsewhere_ext-1' });
    expect(byType.text_settings.message).toContain('noSuchText');
    expect(byType.branding_settings).toMatchObject({ code: 'branding.invalid', message: expect.stringContaining('sparkles') });
    expect(response.body.counts).toMatchObject({ human_user: { created: 1 }, user_link: { failed: 1 }, text_settings: { failed: 1 }, branding_settings: { failed: 1 } });
  });
});

describe('lockout policy on import', () => {
  it('applies a number or a proto3-JSON string and fails a bad value naming the field', async () => {
    const doc = {
      orgs: [
        { orgId: 'lockout-number', org: { name: 'Lockout Number' }, lockoutPolicy: { maxPasswordAttempts: 4, maxOtpAttempts: 9 } },
        { orgId: 'lockout-bad', org: { name: 'Lockout Bad' }, lockoutPolicy: { maxPasswordAttempts: '-1' } },
        { orgId: 'lockout-huge', org: { name: 'Lockout Huge' }, lockoutPolicy: { maxPasswordAttempts: '5000' } },
      ],
    };
    const response = await second('POST', '/admin/v1/import', importBody(doc));
    expectStatus(response, 200);
    expect(response.body.errors).toEqual([
      { type: 'lockout_policy', id: 'lockout-bad', code: 'import.value_invalid', message: expect.stringContaining('lockoutPolicy.maxPasswordAttempts') },
      { type: 'lockout_policy', id: 'lockout-huge', code: 'import.value_invalid', message: expect.stringContaining('lockoutPolicy.maxPasswordAttempts') },
    ]);
    const applied = await second('GET', '/settings/v3alpha/users?ctx.orgId=lockout-number');
    expectStatus(applied, 200);
    expect(applied.body.settings.maxPasswordAttempts).toBe(4);
    // control: a failed policy leaves the organization on the instance's threshold
    const instance = await second('GET', '/settings/v3alpha/users');
    const untouched = await second('GET', '/settings/v3alpha/users?ctx.orgId=lockout-bad');
    expect(untouched.body.settings.maxPasswordAttempts).toBe(instance.body.settings.maxPasswordAttempts);
    expect(untouched.body.settings.maxPasswordAttempts).not.toBe(4);
  });
});

describe('bad input and access', () => {
  it.each([
    ['both inputs', { timeout: '1m', data_orgsv1: '{"orgs":[]}', data_orgsv1_gcs: { bucket: 'bucket-b', path: 'p', serviceaccount_json: 'e30=' } }, 'dataOrgsv1Gcs'],
    ['no input', { timeout: '1m' }, 'dataOrgsv1'],
    ['malformed document', { timeout: '1m', data_orgsv1: '{"orgs":[' }, 'dataOrgsv1'],
    ['document without orgs', { timeout: '1m', data_orgsv1: '{}' }, 'dataOrgsv1.orgs'],
    ['org without id', { timeout: '1m', data_orgsv1: { orgs: [{ org: { name: 'x' } }] } }, 'dataOrgsv1.orgs[0].orgId'],
    ['duplicate org id', { timeout: '1m', data_orgsv1: { orgs: [{ orgId: 'o', org: { name: 'x' } }, { orgId: 'o', org: { name: 'y' } }] } }, 'dataOrgsv1.orgs[1].orgId'],
    ['missing timeout', { data_orgsv1: '{"orgs":[]}' }, 'timeout'],
    ['unparseable timeout', { timeout: 'soon', data_orgsv1: '{"orgs":[]}' }, 'timeout'],
  ])('import: %s → 400', async (_, body, field) => {
    const response = await second('POST', '/admin/v1/import', body);
    expectStatus(response, 400);
    expect(violatedFields(response.body)).toEqual([field]);
  });

  it('export: an unknown org id, a bad timeout, no output → 400', async () => {
    const unknown = await first('POST', '/admin/v1/export', { response_output: true, org_ids: ['no-such-org'] });
    expectStatus(unknown, 400);
    expect(unknown.body.details[0].id).toBe('export.org_not_found');
    expect(violatedFields((await first('POST', '/admin/v1/export', { response_output: true, timeout: '-1s' })).body)).toEqual(['timeout']);
    expect(violatedFields((await first('POST', '/admin/v1/export', {})).body)).toEqual(['responseOutput']);
    expect((await first('POST', '/admin/v1/export', 'not json')).status).toBe(400);
  });

  it('answers 401 without or with an unknown token, 403 without IAM_OWNER, 404 on an unknown host', async () => {
    const path = '/admin/v1/export';
    expect((await api(node, '')('POST', path, { response_output: true })).status).toBe(401);
    expect((await api(node, 'bogus')('POST', path, { response_output: true })).status).toBe(401);
    const outsider = await created(`${R}/users`, { machine: { username: 'not-an-owner', name: 'Not an owner' } });
    const token = (await first('POST', `${R}/users/${outsider}/tokens`, {})).body.token;
    expect((await created(`${R}/memberships`, { orgId: ids.orgA, userId: outsider, roles: ['ORG_OWNER'] })) !== '').toBe(true);
    for (const p of [path, '/admin/v1/import']) expect((await api(node, token)('POST', p, { response_output: true })).status).toBe(403);
    // the first instance's admin token means nothing on the second instance
    expect((await api(node)('POST', '/admin/v1/import', importBody(), { host: secondHost })).status).toBe(401);
    expect((await first('POST', path, { response_output: true }, { host: 'nowhere.test' })).status).toBe(404);
  });

  it('answers 429 on a blocked instance', async () => {
    expectStatus(await system('POST', `${R}/instances/${secondId}/_limit`, { block: true }), 200);
    const blocked = await second('POST', '/admin/v1/import', importBody());
    expect(blocked.status).toBe(429);
    expect(blocked.body.details[0].id).toBe('instance.blocked');
    expectStatus(await system('POST', `${R}/instances/${secondId}/_limit`, { block: false }), 200);
  });
});
