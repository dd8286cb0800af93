/** Application deciders, config rules and evolve: given state, when command, then events / error. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../actors/kernel/errors.js';
import { applicationKind, type Application, type OidcConfig } from '../../actors/organization/application.js';
import { addAppKey } from '../../actors/organization/commands/add-app-key.js';
import { createApp, type CreateApp } from '../../actors/organization/commands/create-app.js';
import { patchApp } from '../../actors/organization/commands/patch-app.js';
import { removeApp } from '../../actors/organization/commands/remove-app.js';
import { removeAppKey } from '../../actors/organization/commands/remove-app-key.js';
import { setAppSecret } from '../../actors/organization/commands/set-app-secret.js';
import { orgKind, type Org } from '../../actors/organization/org.js';
import { projectKind, type Project } from '../../actors/organization/project.js';
import { context, given, NOW, noOutcome, record } from './decide.fixture.js';
import { applyDecision } from './fold.fixture.js';

const owner = { type: 'org', id: 'o1' } as const;
const org = { kind: orgKind, record: record<Org>('o1', { name: 'Acme', primaryDomain: 'acme.localhost', state: 'active' }, owner) };
const project = {
  kind: projectKind,
  record: record<Project>('p1', { orgId: 'o1', name: 'Customer Portal', state: 'active', roles: [], projectRoleAssertion: false, projectRoleCheck: false, hasProjectCheck: false }, owner),
};
const web: OidcConfig = {
  appType: 'web',
  redirectUris: ['https://app.example.com/callback'],
  postLogoutRedirectUris: [],
  responseTypes: ['code'],
  grantTypes: ['authorization_code', 'refresh_token'],
  authMethod: 'basic',
  accessTokenType: 'bearer',
  idTokenUserinfoAssertion: false,
  idTokenRoleAssertion: false,
  accessTokenRoleAssertion: false,
  clockSkewMs: 0,
  devMode: false,
  additionalOrigins: [],
  skipNativeAppSuccessPage: false,
};
const create = (overrides: Partial<CreateApp> = {}): CreateApp => ({
  appId: 'a1',
  orgId: 'o1',
  projectId: 'p1',
  name: 'Web',
  config: { type: 'oidc', oidc: web },
  secretDigest: 'digest-1',
  ...overrides,
});
const oidc = (overrides: Partial<OidcConfig>): CreateApp => create({ config: { type: 'oidc', oidc: { ...web, ...overrides } } });
const webApp = (overrides: Partial<Application> = {}): Application => ({
  orgId: 'o1',
  projectId: 'p1',
  name: 'Web',
  clientId: 'a1@customer-portal',
  config: { type: 'oidc', oidc: web },
  secretDigest: 'digest-1',
  keys: [],
  ...overrides,
});
const withApp = (app: Application = webApp()) => given([org, project, { kind: applicationKind, record: record('a1', app, owner, 2) }]);
const ids = { appId: 'a1', orgId: 'o1', projectId: 'p1' };
const jwk = { kty: 'RSA', n: 'n', e: 'AQAB' } as const;

function errorOf(fn: () => unknown): { code: string; fields: string[] } | undefined {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof AppError)) return { code: 'not-an-app-error', fields: [] };
    return { code: e.code, fields: e.violations.map((v) => v.field) };
  }
  return undefined;
}

describe('createApp', () => {
  it('records the app with a generated client id, claims client id and name, stores the secret digest', () => {
    const decision = createApp.decide(given([org, project]), create(), context());
    expect(decision.events.map((e) => e.type)).toEqual(['project.application.added', 'project.application.secret.changed']);
    expect(decision.events[0]?.payload).toEqual({ projectId: 'p1', name: 'Web', clientId: 'a1@customer-portal', config: { type: 'oidc', oidc: web } });
    expect(decision.claims).toEqual([
      { scope: 'app.client_id', value: 'a1@customer-portal', holder: 'a1' },
      { scope: 'app.name', value: 'p1:web', holder: 'a1' },
    ]);
    expect(decision.reply(noOutcome)).toMatchObject({ clientId: 'a1@customer-portal', secretStored: true });
    const row = applyDecision(applicationKind, 'a1', undefined, decision);
    expect(row?.state).toEqual(webApp());
  });

  it('stores no secret for methods without one', () => {
    const publicClient = createApp.decide(given([org, project]), oidc({ appType: 'user_agent', authMethod: 'none' }), context());
    expect(publicClient.events.map((e) => e.type)).toEqual(['project.application.added']);
    expect(publicClient.reply(noOutcome).secretStored).toBe(false);
    const jwtApi = createApp.decide(given([org, project]), create({ config: { type: 'api', api: { authMethod: 'private_key_jwt' } } }), context());
    expect(jwtApi.events.map((e) => e.type)).toEqual(['project.application.added']);
    const basicApi = createApp.decide(given([org, project]), create({ config: { type: 'api', api: { authMethod: 'basic' } } }), context());
    expect(basicApi.reply(noOutcome).secretStored).toBe(true);
  });

  it('needs the project in the organization, and the organization', () => {
    expect(errorOf(() => createApp.decide(given([org]), create(), context()))?.code).toBe('project.not_found');
    expect(errorOf(() => createApp.decide(given([project]), create(), context()))?.code).toBe('project.not_found');
    expect(errorOf(() => createApp.decide(given([org, project]), create({ orgId: 'o2' }), context()))?.code).toBe('project.not_found');
    expect(errorOf(() => createApp.decide(given([org, project, { kind: applicationKind, id: 'a1', version: 3 }]), create(), context()))?.code).toBe('app.exists');
  });

  it('allows http redirect URIs only for native apps, loopback hosts or dev mode', () => {
    const decide = (c: CreateApp) => () => createApp.decide(given([org, project]), c, context());
    expect(errorOf(decide(oidc({ redirectUris: ['https://ok.example/cb', 'http://app.example.com/cb'] })))).toEqual({
      code: 'app.redirect_uri_insecure',
      fields: ['app.oidc.redirectUris[1]'],
    });
    expect(errorOf(decide(oidc({ postLogoutRedirectUris: ['com.example.app:/logout'] })))?.fields).toEqual(['app.oidc.postLogoutRedirectUris[0]']);
    expect(errorOf(decide(oidc({ redirectUris: ['http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb'] })))).toBeUndefined();
    expect(errorOf(decide(oidc({ redirectUris: ['http://app.example.com/cb'], devMode: true })))).toBeUndefined();
    expect(errorOf(decide(oidc({ appType: 'native', authMethod: 'none', redirectUris: ['http://app.example.com/cb', 'com.example.app:/cb'] })))).toBeUndefined();
  });

  it('allows auth method NONE only for user-agent and native apps', () => {
    expect(errorOf(() => createApp.decide(given([org, project]), oidc({ authMethod: 'none' }), context()))).toEqual({
      code: 'app.auth_method_not_allowed',
      fields: ['app.oidc.authMethod'],
    });
  });

  it('requires response types and grant types to fit', () => {
    const decide = (o: Partial<OidcConfig>) => errorOf(() => createApp.decide(given([org, project]), oidc(o), context()));
    expect(decide({ grantTypes: ['refresh_token'] })).toEqual({ code: 'app.response_grant_mismatch', fields: ['app.oidc.grantTypes'] });
    expect(decide({ responseTypes: ['id_token'], grantTypes: ['authorization_code'] })?.fields).toEqual(['app.oidc.grantTypes', 'app.oidc.responseTypes']);
    expect(decide({ responseTypes: [], grantTypes: ['implicit'] })?.fields).toEqual(['app.oidc.responseTypes']);
    expect(decide({ responseTypes: ['code', 'id_token_token'], grantTypes: ['authorization_code', 'implicit'] })).toBeUndefined();
    expect(decide({ responseTypes: [], grantTypes: ['device_code'] })).toBeUndefined();
    expect(decide({ clockSkewMs: 5001 })?.fields).toEqual(['app.oidc.clockSkew']);
  });
});

describe('patchApp', () => {
  it('records nothing when nothing changes', () => {
    const decision = patchApp.decide(withApp(), { ...ids, name: 'Web', oidc: { devMode: false, redirectUris: ['https://app.example.com/callback'] } }, context());
    expect(decision.events).toEqual([]);
    expect(decision.reply(noOutcome)).toMatchObject({ id: 'a1', sequence: 2 });
  });

  it('renames (moving the name claim) and records only changed config fields', () => {
    const decision = patchApp.decide(withApp(), { ...ids, name: 'Website', oidc: { accessTokenType: 'jwt', devMode: false } }, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([
      ['project.application.changed', { name: 'Website' }],
      ['project.application.oidc.config.changed', { accessTokenType: 'jwt' }],
    ]);
    expect(decision.claims).toEqual([{ scope: 'app.name', value: 'p1:website', holder: 'a1' }]);
    expect(decision.releases).toEqual([{ scope: 'app.name', value: 'p1:web' }]);
    const row = applyDecision(applicationKind, 'a1', record('a1', webApp(), owner, 2), decision);
    expect(row?.state).toEqual(webApp({ name: 'Website', config: { type: 'oidc', oidc: { ...web, accessTokenType: 'jwt' } } }));
  });

  it('validates the resulting configuration (leaving dev mode with an http redirect URI fails)', () => {
    const dev = webApp({ config: { type: 'oidc', oidc: { ...web, devMode: true, redirectUris: ['http://app.example.com/cb'] } } });
    expect(errorOf(() => patchApp.decide(withApp(dev), { ...ids, oidc: { devMode: false } }, context()))).toEqual({
      code: 'app.redirect_uri_insecure',
      fields: ['app.oidc.redirectUris[0]'],
    });
  });

  it('drops the secret when the auth method stops using one', () => {
    const decision = patchApp.decide(withApp(), { ...ids, oidc: { authMethod: 'private_key_jwt' } }, context());
    expect(decision.events.map((e) => e.type)).toEqual(['project.application.oidc.config.changed', 'project.application.secret.removed']);
    expect(applyDecision(applicationKind, 'a1', record('a1', webApp(), owner, 2), decision)?.state.secretDigest).toBe('');
    expect(patchApp.decide(withApp(), { ...ids, oidc: { authMethod: 'post' } }, context()).events.map((e) => e.type)).toEqual([
      'project.application.oidc.config.changed',
    ]);
  });

  it('refuses a config of the other type, and a removed project', () => {
    expect(errorOf(() => patchApp.decide(withApp(), { ...ids, api: { authMethod: 'basic' } }, context()))).toEqual({ code: 'app.type_mismatch', fields: ['app.api'] });
    const noProject = given([org, { kind: applicationKind, record: record('a1', webApp(), owner) }]);
    expect(errorOf(() => patchApp.decide(noProject, { ...ids, name: 'x' }, context()))?.code).toBe('app.not_found');
  });
});

describe('secrets and keys', () => {
  it('replaces the secret only for secret-based methods', () => {
    const decision = setAppSecret.decide(withApp(), { ...ids, digest: 'digest-2' }, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([['project.application.secret.changed', { digest: 'digest-2' }]]);
    const jwtApp = webApp({ config: { type: 'oidc', oidc: { ...web, authMethod: 'private_key_jwt' } }, secretDigest: '' });
    expect(errorOf(() => setAppSecret.decide(withApp(jwtApp), { ...ids, digest: 'd' }, context()))?.code).toBe('app.secret_not_used');
  });

  it('adds keys only to private_key_jwt apps, with a future expiry, up to the limit', () => {
    const jwtApp = webApp({ config: { type: 'api', api: { authMethod: 'private_key_jwt' } }, secretDigest: '' });
    const key = { ...ids, keyId: 'k1', publicKey: jwk, expiresAt: NOW + 1000 };
    const decision = addAppKey.decide(withApp(jwtApp), key, context());
    expect(decision.events.map((e) => [e.type, e.payload])).toEqual([['project.application.key.added', { id: 'k1', publicKey: jwk, expiresAt: NOW + 1000 }]]);
    expect(applyDecision(applicationKind, 'a1', record('a1', jwtApp, owner, 2), decision)?.state.keys).toEqual([
      { id: 'k1', publicKey: jwk, expiresAt: NOW + 1000, createdAt: NOW, sequence: 10 },
    ]);
    expect(errorOf(() => addAppKey.decide(withApp(), key, context()))?.code).toBe('app.keys_not_used');
    expect(errorOf(() => addAppKey.decide(withApp(jwtApp), { ...key, expiresAt: NOW }, context()))?.code).toBe('app.key_expiry_in_past');
    const full = webApp({ ...jwtApp, keys: Array.from({ length: 20 }, (_, i) => ({ id: `k${i}`, publicKey: jwk, expiresAt: NOW + 1, createdAt: NOW, sequence: i })) });
    expect(errorOf(() => addAppKey.decide(withApp(full), key, context()))?.code).toBe('app.too_many_keys');
  });

  it('removes a key, and refuses an unknown one', () => {
    const withKey = webApp({ keys: [{ id: 'k1', publicKey: jwk, expiresAt: NOW + 1, createdAt: NOW, sequence: 1 }] });
    expect(removeAppKey.decide(withApp(withKey), { ...ids, keyId: 'k1' }, context()).events.map((e) => e.type)).toEqual(['project.application.key.removed']);
    expect(errorOf(() => removeAppKey.decide(withApp(), { ...ids, keyId: 'k1' }, context()))?.code).toBe('app.key_not_found');
  });
});

describe('removeApp', () => {
  it('releases client id and name', () => {
    const decision = removeApp.decide(withApp(), ids, context());
    expect(decision.events.map((e) => e.type)).toEqual(['project.application.removed']);
    expect(decision.releases).toEqual([
      { scope: 'app.client_id', value: 'a1@customer-portal' },
      { scope: 'app.name', value: 'p1:web' },
    ]);
    expect(applyDecision(applicationKind, 'a1', record('a1', webApp(), owner, 2), decision)).toBeUndefined();
  });
});
