/**
 * PlatformApps over JSON/HTTP (and one call over gRPC) against a started node: OIDC and API
 * apps, the client secret shown once, `_generate_secret`, private_key_jwt keys whose key file
 * signs verifiable assertions, the client id lookup, search, validation, scoping, permissions.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appPublicKeys, verifyAppSecret } from '../../src/query/app-clients.js';
import { OidcAppType, OidcAuthMethodType, PlatformApps } from '../../src/gen/platform/resources/app/v3alpha/app_service_pb.js';
import { lookupClient } from './app-clients.fixture.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { readSetup, seedMachineUser, type SeedSetup } from './seed.fixture.js';

const BASE = '/resources/v3alpha/apps';

let node: TestNode;
let call: ReturnType<typeof api>;
let setup: SeedSetup;
let projectId: string;
let otherOrg: string;
let foreignProject: string;

const webConfig = {
  appType: 'OIDC_APP_TYPE_WEB',
  redirectUris: ['https://app.example.com/callback'],
  postLogoutRedirectUris: ['https://app.example.com/'],
  responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
  grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
  authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC',
  accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
  idTokenRoleAssertion: true,
  clockSkew: '2s',
  additionalOrigins: ['https://other.example.com'],
};

beforeAll(async () => {
  node = await startTestNode();
  call = api(node);
  setup = await readSetup(node);
  projectId = (await call('POST', '/resources/v3alpha/projects', { name: 'Apps Project' })).body.details.id;
  otherOrg = (await call('POST', '/resources/v3alpha/organizations', { name: 'Apps Other Org' })).body.details.id;
  foreignProject = (await call('POST', `/resources/v3alpha/projects?ctx.orgId=${otherOrg}`, { name: 'Foreign Project' })).body.details.id;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('apps', () => {
  it('creates an OIDC app: client id and secret once; reads and searches never show the secret', async () => {
    const created = await call('POST', BASE, { projectId, name: 'Web', oidc: webConfig });
    expect(created.status).toBe(201);
    const id: string = created.body.details.id;
    const { clientId, clientSecret } = created.body;
    expect(clientId).toBe(`${id}@apps-project`);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const got = await call('GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.app).toMatchObject({
      clientId,
      hasClientSecret: true,
      details: { id, sequence: created.body.details.sequence, resourceOwner: { id: setup.orgId } },
      app: { projectId, name: 'Web', oidc: { ...webConfig, clockSkew: '2s' } },
    });
    const searched = await call('POST', `${BASE}/_search`, [{ clientId: { id: clientId } }]);
    expect(searched.body.result.map((a: any) => a.details.id)).toEqual([id]);
    for (const body of [got.body, searched.body]) expect(JSON.stringify(body)).not.toContain(clientSecret);

    const client = await lookupClient(node, clientId);
    expect(client?.app.id).toBe(id);
    expect(client?.app.state).toMatchObject({ projectId, orgId: setup.orgId, config: { type: 'oidc', oidc: { authMethod: 'basic', clockSkewMs: 2000 } } });
    expect(client?.project.id).toBe(projectId);
    expect(verifyAppSecret(client!.app.state, clientSecret)).toBe(true); // found above

    const rotated = await call('POST', `${BASE}/${id}/_generate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.body.clientSecret).not.toBe(clientSecret);
    const after = (await lookupClient(node, clientId))!; // still there
    expect(verifyAppSecret(after.app.state, rotated.body.clientSecret)).toBe(true);
    expect(verifyAppSecret(after.app.state, clientSecret)).toBe(false);
  });

  it('patches partially (also as a no-op), keeps lists sent empty, then deletes', async () => {
    const created = await call('POST', BASE, { projectId, name: 'Patchable', oidc: webConfig });
    const id = created.body.details.id;
    const patched = await call('PATCH', `${BASE}/${id}`, { name: 'Patched', oidc: { devMode: true, redirectUris: ['http://dev.example.com/cb'] } });
    expect(patched.status).toBe(200);
    expect(BigInt(patched.body.details.sequence)).toBeGreaterThan(BigInt(created.body.details.sequence));
    const app = (await call('GET', `${BASE}/${id}`)).body.app.app;
    expect(app).toMatchObject({ name: 'Patched', oidc: { devMode: true, redirectUris: ['http://dev.example.com/cb'], postLogoutRedirectUris: webConfig.postLogoutRedirectUris } });
    for (const body of [{}, { name: 'Patched', oidc: { devMode: true, redirectUris: [], additionalOrigins: [] } }]) {
      const noop = await call('PATCH', `${BASE}/${id}`, body);
      expect(noop.status).toBe(200);
      expect(noop.body.details.sequence).toBe(patched.body.details.sequence);
    }
    const leaveDev = await call('PATCH', `${BASE}/${id}`, { oidc: { devMode: false } });
    expect(leaveDev.status).toBe(400);
    expect(leaveDev.body.details[0].id).toBe('app.redirect_uri_insecure');
    expect(violatedFields(leaveDev.body)).toEqual(['app.oidc.redirectUris[0]']);
    const wrongType = await call('PATCH', `${BASE}/${id}`, { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.details[0].id).toBe('app.type_mismatch');

    const clientId = created.body.clientId;
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    const gone = await call('GET', `${BASE}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.details[0].id).toBe('app.not_found');
    expect((await call('PATCH', `${BASE}/${id}`, { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
    expect(await lookupClient(node, clientId)).toBeUndefined();
    expect((await call('POST', BASE, { projectId, name: 'Patched', oidc: webConfig })).status).toBe(201); // name free again
  });

  it('public clients get no secret; API apps use basic or private_key_jwt', async () => {
    const spa = await call('POST', BASE, {
      projectId,
      name: 'SPA',
      oidc: { appType: 'OIDC_APP_TYPE_USER_AGENT', authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE', redirectUris: ['http://localhost:4200/cb'] },
    });
    expect(spa.status).toBe(201);
    expect(spa.body.clientSecret).toBeUndefined();
    const spaApp = (await call('GET', `${BASE}/${spa.body.details.id}`)).body.app;
    expect(spaApp.hasClientSecret).toBeUndefined();
    expect(spaApp.app.oidc).toMatchObject({ responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'], accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' });
    const noSecret = await call('POST', `${BASE}/${spa.body.details.id}/_generate_secret`);
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.details[0].id).toBe('app.secret_not_used');

    const basicApi = await call('POST', BASE, { projectId, name: 'Introspector', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    expect(basicApi.status).toBe(201);
    expect(basicApi.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const found = await lookupClient(node, basicApi.body.clientId);
    expect(found?.app.state.config).toEqual({ type: 'api', api: { authMethod: 'basic' } });
    expect(verifyAppSecret(found!.app.state, basicApi.body.clientSecret)).toBe(true); // found above
  });

  it('generates keys for private_key_jwt apps: the key file signs assertions the app keys verify', async () => {
    const created = await call('POST', BASE, { projectId, name: 'JWT API', api: { authMethod: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' } });
    expect(created.body.clientSecret).toBeUndefined();
    const appId = created.body.details.id;
    const keyResponse = await call('POST', `${BASE}/${appId}/keys`, { expirationDate: '2100-01-01T00:00:00Z' });
    expect(keyResponse.status).toBe(201);
    const keyFile = keyResponse.body.keyFile;
    expect(Object.keys(keyFile).sort()).toEqual(['appId', 'clientId', 'key', 'keyId', 'type']);
    expect(keyFile).toMatchObject({ type: 'application', keyId: keyResponse.body.details.id, appId, clientId: created.body.clientId });
    expect(keyFile.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);

    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
      .setIssuer(keyFile.clientId)
      .setSubject(keyFile.clientId)
      .setAudience(node.baseUrl)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(createPrivateKey(keyFile.key));
    const client = (await lookupClient(node, keyFile.clientId))!; // created above
    const jwk = appPublicKeys(client.app.state, Date.now()).find((k) => k.kid === keyFile.keyId);
    expect(jwk).toBeDefined();
    const verified = await jwtVerify(assertion, await importJWK(jwk!, 'RS256'), { issuer: keyFile.clientId, audience: node.baseUrl });
    expect(verified.payload.sub).toBe(keyFile.clientId);

    const listed = await call('POST', `${BASE}/${appId}/keys/_search`, []);
    expect(listed.body.result).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ id: keyFile.keyId }), expirationDate: '2100-01-01T00:00:00Z' }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('PRIVATE KEY');
    expect((await call('GET', `${BASE}/${appId}`)).body.app.keyCount).toBe(1);

    expect((await call('DELETE', `${BASE}/${appId}/keys/${keyFile.keyId}`)).status).toBe(200);
    const again = await call('DELETE', `${BASE}/${appId}/keys/${keyFile.keyId}`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('app.key_not_found');
    expect(appPublicKeys((await lookupClient(node, keyFile.clientId))!.app.state, Date.now())).toEqual([]);

    const past = await call('POST', `${BASE}/${appId}/keys`, { expirationDate: '2000-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.details[0].id).toBe('app.key_expiry_in_past');
    const basic = (await call('POST', BASE, { projectId, name: 'No Keys', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } })).body.details.id;
    const refused = await call('POST', `${BASE}/${basic}/keys`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].id).toBe('app.keys_not_used');
  });

  it('searches with each filter, sorts by each column both ways and pages', async () => {
    const searchProject = (await call('POST', '/resources/v3alpha/projects', { name: 'Search Apps' })).body.details.id;
    const ids: Record<string, string> = {};
    const clientIds: Record<string, string> = {};
    for (const [name, body] of [
      ['S-C', { oidc: webConfig }],
      ['S-A', { api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } }],
      ['S-B', { oidc: webConfig }],
    ] as const) {
      const created = (await call('POST', BASE, { projectId: searchProject, name, ...body })).body;
      ids[name] = created.details.id;
      clientIds[name] = created.clientId;
    }
    await call('PATCH', `${BASE}/${ids['S-C']}`, { oidc: { devMode: true } }); // newest change
    const inProject = { projectId: { id: searchProject } };
    const names = async (path: string, filters: unknown[] = [inProject]) => {
      const response = await call('POST', `${BASE}/_search${path}`, filters);
      expect(response.status).toBe(200);
      return response.body.result?.map((a: any) => a.app.name) ?? [];
    };
    expect(await names('?sortingColumn=APP_FIELD_NAME_NAME&query.asc=true')).toEqual(['S-A', 'S-B', 'S-C']);
    expect(await names('?sortingColumn=APP_FIELD_NAME_NAME')).toEqual(['S-C', 'S-B', 'S-A']);
    expect(await names('')).toEqual(['S-B', 'S-A', 'S-C']);
    expect(await names('?sortingColumn=APP_FIELD_NAME_CREATION_DATE&query.asc=true')).toEqual(['S-C', 'S-A', 'S-B']);
    expect(await names('?sortingColumn=APP_FIELD_NAME_ID&query.asc=true')).toEqual(['S-C', 'S-A', 'S-B']);
    expect(await names('?sortingColumn=APP_FIELD_NAME_CLIENT_ID')).toEqual(['S-B', 'S-A', 'S-C']);
    expect(await names('?sortingColumn=APP_FIELD_NAME_CHANGE_DATE')).toEqual(['S-C', 'S-B', 'S-A']);
    expect(await names('?sortingColumn=APP_FIELD_NAME_CHANGE_DATE&query.asc=true')).toEqual(['S-A', 'S-B', 'S-C']);
    const page = await call('POST', `${BASE}/_search?sortingColumn=APP_FIELD_NAME_NAME&query.asc=true&query.offset=1&query.limit=1`, [inProject]);
    expect(page.body.result.map((a: any) => a.app.name)).toEqual(['S-B']);
    expect(page.body.details).toMatchObject({ appliedLimit: 1, totalResult: '3' });

    expect(await names('', [inProject, { type: { type: 'APP_TYPE_API' } }])).toEqual(['S-A']);
    expect(await names('?query.asc=true', [inProject, { type: { type: 'APP_TYPE_OIDC' } }])).toEqual(['S-C', 'S-B']);
    expect(await names('', [{ clientId: { id: clientIds['S-B'] } }])).toEqual(['S-B']);
    expect(await names('', [inProject, { name: { name: 's-a', method: 'TEXT_FILTER_METHOD_EQUALS_IGNORE_CASE' } }])).toEqual(['S-A']);
    expect(await names('?query.asc=true', [{ inIds: { ids: [ids['S-A'], ids['S-C']] } }])).toEqual(['S-C', 'S-A']);
    expect(await names(`?ctx.orgId=${otherOrg}`)).toEqual([]);

    const tooMany = await call('POST', `${BASE}/_search?query.limit=1001`, []);
    expect(tooMany.status).toBe(400);
    expect(violatedFields(tooMany.body)).toContain('query.limit');
  });

  it('rejects invalid configurations with 400 naming the field, and writes nothing', async () => {
    const count = async () => (await call('POST', `${BASE}/_search?query.limit=1000`, [])).body.details.totalResult;
    const before = await count();
    const oidc = (overrides: Record<string, unknown>) => ({ projectId, name: 'Invalid', oidc: { ...webConfig, ...overrides } });
    const cases: [string, unknown, string, string][] = [
      ['http redirect for a web app', oidc({ redirectUris: ['http://app.example.com/cb'] }), 'app.oidc.redirectUris[0]', 'app.redirect_uri_insecure'],
      ['custom scheme for a web app', oidc({ postLogoutRedirectUris: ['com.example:/out'] }), 'app.oidc.postLogoutRedirectUris[0]', 'app.redirect_uri_insecure'],
      ['NONE for a web app', oidc({ authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE' }), 'app.oidc.authMethod', 'app.auth_method_not_allowed'],
      ['CODE without AUTHORIZATION_CODE', oidc({ grantTypes: ['OIDC_GRANT_TYPE_REFRESH_TOKEN'] }), 'app.oidc.grantTypes', 'app.response_grant_mismatch'],
      ['IMPLICIT without ID_TOKEN', oidc({ grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT'] }), 'app.oidc.responseTypes', 'app.response_grant_mismatch'],
      ['missing project', { name: 'x', oidc: webConfig }, 'app.projectId', 'request.invalid'],
      ['unknown enum', oidc({ appType: 'OIDC_APP_TYPE_NOPE' }), 'app.oidc.appType', 'request.invalid'],
      ['unspecified app type', oidc({ appType: undefined }), 'app.oidc.appType', 'request.invalid'],
      ['unknown grant type', oidc({ grantTypes: ['OIDC_GRANT_TYPE_PASSWORD'] }), 'app.oidc.grantTypes[0]', 'request.invalid'],
      ['relative redirect URI', oidc({ redirectUris: ['/callback'] }), 'app.oidc.redirectUris[0]', 'request.invalid'],
      ['redirect URI with fragment', oidc({ redirectUris: ['https://app.example.com/cb#x'] }), 'app.oidc.redirectUris[0]', 'request.invalid'],
      ['origin with a path', oidc({ additionalOrigins: ['https://other.example.com/path'] }), 'app.oidc.additionalOrigins[0]', 'request.invalid'],
      ['clock skew above 5s', oidc({ clockSkew: '6s' }), 'app.oidc.clockSkew', 'request.invalid'],
      ['over-long name', { ...oidc({}), name: 'x'.repeat(201) }, 'app.name', 'request.invalid'],
      ['no configuration', { projectId, name: 'x' }, 'app.oidc', 'request.invalid'],
      ['unspecified API auth method', { projectId, name: 'x', api: {} }, 'app.api.authMethod', 'request.invalid'],
      ['wrong type', { projectId, name: 'x', oidc: { ...webConfig, devMode: 'yes' } }, 'app.oidc.devMode', 'request.invalid'],
    ];
    for (const [label, body, field, code] of cases) {
      const response = await call('POST', BASE, body);
      expect(response.status, label).toBe(400);
      expect(response.body.code, label).toBe(3);
      expect(response.body.details[0].id, label).toBe(code);
      expect(violatedFields(response.body), label).toContain(field);
    }
    const missing = await call('POST', BASE, { projectId: '4242', name: 'x', oidc: webConfig });
    expect(missing.status).toBe(404);
    expect(missing.body.details[0].id).toBe('project.not_found');
    expect(await count()).toBe(before);
  });

  it('keeps other organizations out: their projects and apps are not found under the ctx org', async () => {
    const foreign = await call('POST', `${BASE}?ctx.orgId=${otherOrg}`, { projectId: foreignProject, name: 'Foreign', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } });
    expect(foreign.status).toBe(201);
    expect(foreign.body.details.resourceOwner.id).toBe(otherOrg);
    const intoForeign = await call('POST', `${BASE}?ctx.orgId=${setup.orgId}`, { projectId: foreignProject, name: 'Sneaky', oidc: webConfig });
    expect(intoForeign.status).toBe(404);
    expect(intoForeign.body.details[0].id).toBe('project.not_found');
    expect((await call('GET', `${BASE}/${foreign.body.details.id}?ctx.orgId=${otherOrg}`)).status).toBe(200); // in its own org it is there
    const hidden = await call('GET', `${BASE}/${foreign.body.details.id}?ctx.orgId=${setup.orgId}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.details[0].id).toBe('app.not_found');
  });

  it('answers 403 without project.app.write (or .delete) in the app organization', async () => {
    const appId = (await call('POST', BASE, { projectId, name: 'Guarded App', oidc: webConfig })).body.details.id;
    const viewer = await seedMachineUser(node, {
      username: 'app-viewer',
      memberships: [{ contextType: 'org', contextId: setup.orgId, roles: ['ORG_OWNER_VIEWER'] }],
    });
    const owner = await seedMachineUser(node, {
      username: 'app-org-owner',
      memberships: [{ contextType: 'org', contextId: setup.orgId, roles: ['ORG_OWNER'] }],
    });
    const asViewer = api(node, viewer.token);
    const got = await asViewer('GET', `${BASE}/${appId}`);
    expect(got.status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, { projectId, name: 'Viewer App', oidc: webConfig }],
      ['PATCH', `${BASE}/${appId}`, { name: 'Nope' }],
      ['POST', `${BASE}/${appId}/_generate_secret`, undefined],
      ['POST', `${BASE}/${appId}/keys`, {}],
      ['DELETE', `${BASE}/${appId}`, undefined],
    ] as const) {
      const denied = await asViewer(method, path, body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.details[0].id).toBe('auth.permission_denied');
    }
    const asOwner = api(node, owner.token);
    expect((await asOwner('PATCH', `${BASE}/${appId}`, { name: 'Owner Renamed' })).status).toBe(200);
    expect((await asOwner('DELETE', `${BASE}/${appId}`)).status).toBe(403); // ORG_OWNER lacks project.app.delete
  });

  it('deleting or deactivating the project takes its apps out of service', async () => {
    const doomed = (await call('POST', '/resources/v3alpha/projects', { name: 'Doomed' })).body.details.id;
    const created = (await call('POST', BASE, { projectId: doomed, name: 'Doomed App', api: { authMethod: 'API_AUTH_METHOD_TYPE_BASIC' } })).body;
    expect(await lookupClient(node, created.clientId)).toBeDefined();
    await call('POST', `/resources/v3alpha/projects/${doomed}/_deactivate`);
    expect(await lookupClient(node, created.clientId)).toBeUndefined();
    await call('POST', `/resources/v3alpha/projects/${doomed}/_activate`);
    expect((await call('DELETE', `/resources/v3alpha/projects/${doomed}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${created.details.id}`)).status).toBe(404);
    expect(await lookupClient(node, created.clientId)).toBeUndefined();
    expect((await call('POST', `${BASE}/_search`, [{ clientId: { id: created.clientId } }])).body.result).toBeUndefined();
  });

  it('creates an app over gRPC', async () => {
    const client = createClient(PlatformApps, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const response = await client.createApp(
      {
        app: {
          projectId,
          name: 'gRPC App',
          config: { case: 'oidc', value: { appType: OidcAppType.NATIVE, authMethod: OidcAuthMethodType.NONE, redirectUris: ['com.example.app:/callback'] } },
        },
      },
      { headers: { authorization: `Bearer ${node.adminToken}` } },
    );
    expect(response.clientId).toBe(`${response.details?.id}@apps-project`);
    expect(response.clientSecret).toBe('');
    const viaJson = await call('GET', `${BASE}/${response.details?.id}`);
    expect(viaJson.body.app.app.oidc.appType).toBe('OIDC_APP_TYPE_NATIVE');
  });
});
