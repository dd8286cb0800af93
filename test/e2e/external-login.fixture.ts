/**
 * Fixtures of the external login suite: a second Tessera node acting as the forge self-hosted
 * IDP (its instance answers on 127.0.0.1, so its cookies and issuer differ from node A's on
 * localhost), its OIDC app whose redirect URI is node A's IDP callback, its users, and
 * FORGE_SELF_HOSTED IDPs on node A pointing at it.
 */
import { api, type TestNode } from './harness.js';
import { openNodeStore } from './node-store.fixture.js';
import { readSetup } from './seed.fixture.js';

export const IDP_PASSWORD = 'Secr3tPassword';
export const EXTERNAL_CALLBACK_PATH = '/ui/login/external/callback';

/** node B's API: its instance is addressed by the host 127.0.0.1. */
export function providerApi(node: TestNode) {
  const call = api(node);
  return (method: string, path: string, body?: unknown) => call(method, path, body, { host: `127.0.0.1:${node.httpPort}` });
}

export function providerIssuer(node: TestNode): string {
  return `http://127.0.0.1:${node.httpPort}`;
}

export interface ProviderApp {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** A confidential web app on node B (client_secret_basic) redirecting to node A's IDP callback. */
export async function createProviderApp(provider: TestNode, relyingParty: TestNode): Promise<ProviderApp> {
  const call = providerApi(provider);
  const project = await call('POST', '/resources/v3alpha/projects', { name: 'Federation' });
  if (project.status !== 201) throw new Error(`project: ${JSON.stringify(project.body)}`);
  const app = await call('POST', '/resources/v3alpha/apps', {
    projectId: project.body.details.id,
    name: 'Node A login',
    oidc: {
      appType: 'OIDC_APP_TYPE_WEB',
      authMethod: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      redirectUris: [`${relyingParty.baseUrl}${EXTERNAL_CALLBACK_PATH}`],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER',
    },
  });
  if (app.status !== 201) throw new Error(`app: ${JSON.stringify(app.body)}`);
  return { clientId: app.body.clientId, clientSecret: app.body.clientSecret };
}

export interface HumanSpec {
  readonly username: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
  readonly emailVerified: boolean;
}

/** A human with IDP_PASSWORD through a node's users API (`call` picks the node and host). */
export async function addHuman(call: ReturnType<typeof providerApi>, spec: HumanSpec): Promise<string> {
  const created = await call('POST', '/resources/v3alpha/users', {
    human: {
      username: spec.username,
      profile: { givenName: spec.givenName, familyName: spec.familyName },
      email: { address: spec.email, isVerified: spec.emailVerified },
      password: IDP_PASSWORD,
    },
  });
  if (created.status !== 201) throw new Error(`user ${spec.username}: ${JSON.stringify(created.body)}`);
  return created.body.details.id;
}

export interface IdpOptionsSpec {
  readonly isManualLinkingAllowed?: boolean;
  readonly isManualCreationAllowed?: boolean;
  readonly isAutoCreation?: boolean;
  readonly isAutoUpdate?: boolean;
  readonly autoLinking?: 'AUTO_LINKING_OPTION_UNSPECIFIED' | 'AUTO_LINKING_OPTION_USERNAME' | 'AUTO_LINKING_OPTION_EMAIL';
}

/** A FORGE_SELF_HOSTED instance IDP on node A with node B's issuer and app. */
export async function createSelfHostedIdp(relyingParty: TestNode, provider: TestNode, app: ProviderApp, name: string, options: IdpOptionsSpec, statePolicy = 'STATE_POLICY_ACTIVATE'): Promise<string> {
  const created = await api(relyingParty)('POST', '/resources/v3alpha/idps/forge_self_hosted', {
    idp: { name, statePolicy, options },
    config: { clientId: app.clientId, clientSecret: app.clientSecret, scopes: ['openid', 'profile', 'email'], issuer: providerIssuer(provider) },
  });
  if (created.status !== 201) throw new Error(`idp ${name}: ${JSON.stringify(created.body)}`);
  return created.body.details.id;
}

/** The `user.idp.link.added` payloads of a user and its read model's links, read from the node's LMDB store. */
export async function linksOf(node: TestNode, userId: string): Promise<{ events: unknown[]; row: unknown }> {
  const { instanceId } = await readSetup(node);
  const store = await openNodeStore(node);
  try {
    const events = (await store.readStream(instanceId, 'user', userId)).filter((e) => e.type === 'user.idp.link.added').map((e) => e.payload);
    const record = (await store.getRecord(instanceId, 'users', userId)) as { state?: { idpLinks?: unknown } } | undefined;
    return { events, row: record?.state?.idpLinks };
  } finally {
    await store.close();
  }
}
