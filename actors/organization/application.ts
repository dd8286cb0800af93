/**
 * Applications (clients) of a project: OIDC apps and API apps (introspection). The client id is
 * claimed instance-wide under `app.client_id` (the token endpoint finds the app in one lookup);
 * the name is unique per project. A client secret is stored only as its SHA-256 digest; keys of
 * private_key_jwt clients only as public JWKs.
 */
import { applicationEvents } from '../events.js';
import type { AggregateKind, AggregateRecord } from '../kernel/aggregate.js';
import type { LoadedSet } from '../kernel/command.js';
import { notFound } from '../kernel/errors.js';
import { isLiveProject } from './project.js';

export type OidcAppType = 'web' | 'user_agent' | 'native';
export type OidcResponseType = 'code' | 'id_token' | 'id_token_token';
export type OidcGrantType = 'authorization_code' | 'implicit' | 'refresh_token' | 'device_code' | 'token_exchange';
/** client_secret_basic, client_secret_post, none (PKCE), private_key_jwt. */
export type OidcAuthMethod = 'basic' | 'post' | 'none' | 'private_key_jwt';
/** API apps authenticate for introspection: client_secret_basic or private_key_jwt. */
export type ApiAuthMethod = 'basic' | 'private_key_jwt';
/** `bearer`: opaque access tokens; `jwt`: JWT access tokens. */
export type AccessTokenType = 'bearer' | 'jwt';

export interface OidcConfig {
  readonly appType: OidcAppType;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  readonly responseTypes: readonly OidcResponseType[];
  readonly grantTypes: readonly OidcGrantType[];
  readonly authMethod: OidcAuthMethod;
  readonly accessTokenType: AccessTokenType;
  readonly idTokenUserinfoAssertion: boolean;
  readonly idTokenRoleAssertion: boolean;
  readonly accessTokenRoleAssertion: boolean;
  /** Tolerated clock difference, 0..5000 ms; added to token expiries. */
  readonly clockSkewMs: number;
  /** Relaxes the redirect URI rules (http, custom schemes) for development. */
  readonly devMode: boolean;
  /** Extra CORS origins besides those of the redirect URIs. */
  readonly additionalOrigins: readonly string[];
  readonly skipNativeAppSuccessPage: boolean;
}

export interface ApiConfig {
  readonly authMethod: ApiAuthMethod;
}

export type AppConfig = { readonly type: 'oidc'; readonly oidc: OidcConfig } | { readonly type: 'api'; readonly api: ApiConfig };

/** An RSA public key as a JWK (RFC 7517), without `kid` (the key id is beside it). */
export interface PublicRsaJwk {
  readonly kty: 'RSA';
  readonly n: string;
  readonly e: string;
}

export interface AppKey {
  readonly id: string;
  readonly publicKey: PublicRsaJwk;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  readonly createdAt: number;
  /** Position of the event that added the key. */
  readonly sequence: number;
}

export interface Application {
  readonly orgId: string;
  readonly projectId: string;
  readonly name: string;
  readonly clientId: string;
  readonly config: AppConfig;
  /** SHA-256 (base64url) of the client secret; '' when the app has none. */
  readonly secretDigest: string;
  readonly keys: readonly AppKey[];
}

export const APP_CLIENT_ID_SCOPE = 'app.client_id';
export const APP_NAME_SCOPE = 'app.name';

/** Keys an application may hold at once. */
export const MAX_APP_KEYS = 20;

export function appNameKey(projectId: string, name: string): string {
  return `${projectId}:${name.trim().toLowerCase()}`;
}

export type ApplicationEvent =
  | { type: 'project.application.added'; payload: { projectId: string; name: string; clientId: string; config: AppConfig } }
  | { type: 'project.application.changed'; payload: { name: string } }
  | { type: 'project.application.oidc.config.changed'; payload: Partial<OidcConfig> }
  | { type: 'project.application.api.config.changed'; payload: Partial<ApiConfig> }
  | { type: 'project.application.secret.changed'; payload: { digest: string } }
  | { type: 'project.application.secret.removed'; payload: Record<string, never> }
  | { type: 'project.application.key.added'; payload: { id: string; publicKey: PublicRsaJwk; expiresAt: number } }
  | { type: 'project.application.key.removed'; payload: { id: string } }
  | { type: 'project.application.removed'; payload: Record<string, never> };

export const applicationKind: AggregateKind<Application, ApplicationEvent, 'application'> = {
  type: 'application',
  table: 'applications',
  events: applicationEvents,
  evolve(state, e) {
    if (e.type === 'project.application.added') return { orgId: e.owner.id, ...e.payload, secretDigest: '', keys: [] };
    if (state === undefined) return undefined;
    switch (e.type) {
      case 'project.application.changed':
        return { ...state, name: e.payload.name };
      case 'project.application.oidc.config.changed':
        return state.config.type === 'oidc' ? { ...state, config: { type: 'oidc', oidc: { ...state.config.oidc, ...e.payload } } } : state;
      case 'project.application.api.config.changed':
        return state.config.type === 'api' ? { ...state, config: { type: 'api', api: { ...state.config.api, ...e.payload } } } : state;
      case 'project.application.secret.changed':
        return { ...state, secretDigest: e.payload.digest };
      case 'project.application.secret.removed':
        return { ...state, secretDigest: '' };
      case 'project.application.key.added':
        return { ...state, keys: [...state.keys, { ...e.payload, createdAt: e.createdAt, sequence: e.position }] };
      case 'project.application.key.removed':
        return { ...state, keys: state.keys.filter((k) => k.id !== e.payload.id) };
      case 'project.application.removed':
        return undefined;
      default:
        return state;
    }
  },
};

/** The authentication method of an app, whatever its type. */
export function authMethodOf(config: AppConfig): OidcAuthMethod {
  return config.type === 'oidc' ? config.oidc.authMethod : config.api.authMethod;
}

/** True when the app authenticates with a client secret (client_secret_basic / _post). */
export function usesClientSecret(config: AppConfig): boolean {
  const method = authMethodOf(config);
  return method === 'basic' || method === 'post';
}

/** True when the app authenticates with a signed assertion (private_key_jwt). */
export function usesKeys(config: AppConfig): boolean {
  return authMethodOf(config) === 'private_key_jwt';
}

/**
 * The application of a command: it, its project and its organization must exist and belong
 * together (an app of a removed project or org is gone). Throws `app.not_found`.
 */
export function requireLiveApp(loaded: LoadedSet, orgId: string, appId: string, projectId: string): AggregateRecord<Application> {
  const app = loaded.get(applicationKind, appId).record;
  const live = app !== undefined && app.state.orgId === orgId && app.state.projectId === projectId && isLiveProject(loaded, orgId, projectId);
  if (!live) throw notFound('app.not_found', 'application not found');
  return app;
}

/** Generated client ids: `<app id>@<slug of the project name>` (unique because app ids are). */
export function generatedClientId(appId: string, projectName: string): string {
  const slug = projectName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // drop combining marks: Ü → U
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${appId}@${slug === '' ? 'project' : slug}`;
}
