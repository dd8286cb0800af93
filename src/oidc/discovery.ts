/**
 * OpenID Connect Discovery 1.0 (§3, §4): `GET /.well-known/openid-configuration` of the Host's
 * instance, with the seed 001 endpoint addresses under the request's issuer (issuer.ts) and the
 * values of reference facts §5.7. Advertises only what Tessera supports: no request objects, no
 * device flow, no back-channel logout. There is deliberately no OAuth 2.0 AS metadata (RFC 8414).
 */
import { createHash } from 'node:crypto';
import type { TenantDirectory } from '../query/tenant.js';
import type { Config } from '../config/schema.js';
import { invalidArgument, SIGNING_ALGORITHMS } from '../../actors/index.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest, WholeReply } from '../http/types.js';
import { isNotModified, KEYS_PATH } from './keys.js';
import { knownUsableInstance, requireInstance, withErrorReplies } from './shared/endpoint.js';
import { issuerFor } from './shared/issuer.js';
import type { UiLocalesResolver } from './shared/ui-locales.js';
import { ACR_MULTI_FACTOR, ACR_ONE_FACTOR } from './shared/id-token.js';

export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/** Seed 001 "Endpoint addresses", relative to the issuer. */
export const ENDPOINT_PATHS = {
  authorization_endpoint: '/oauth/v2/authorize',
  token_endpoint: '/oauth/v2/token',
  introspection_endpoint: '/oauth/v2/introspect',
  userinfo_endpoint: '/oidc/v1/userinfo',
  revocation_endpoint: '/oauth/v2/revoke',
  end_session_endpoint: '/oidc/v1/end_session',
  jwks_uri: KEYS_PATH,
} as const satisfies Record<string, string>;

const CLIENT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'];
const CLIENT_ASSERTION_ALGS = ['RS256'];

/** Everything of the document that does not depend on the issuer or the instance. */
const STATIC_METADATA = {
  scopes_supported: ['openid', 'profile', 'email', 'phone', 'address', 'offline_access'],
  response_types_supported: ['code', 'id_token', 'id_token token'],
  response_modes_supported: ['query', 'fragment', 'form_post'],
  grant_types_supported: [
    'authorization_code',
    'implicit',
    'refresh_token',
    'client_credentials',
    'urn:ietf:params:oauth:grant-type:jwt-bearer',
    'urn:ietf:params:oauth:grant-type:token-exchange',
  ],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
  token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
  token_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGS,
  introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
  introspection_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGS,
  revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
  revocation_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGS,
  claims_supported: [
    'sub', 'aud', 'exp', 'iat', 'iss', 'auth_time', 'nonce', 'acr', 'amr', 'c_hash', 'at_hash', 'act', 'scopes', 'client_id',
    'azp', 'preferred_username', 'name', 'family_name', 'given_name', 'locale', 'email', 'email_verified', 'phone_number',
    'phone_number_verified',
  ],
  code_challenge_methods_supported: ['S256'],
  acr_values_supported: [ACR_ONE_FACTOR, ACR_MULTI_FACTOR],
  authorization_response_iss_parameter_supported: true,
  request_parameter_supported: false,
  request_uri_parameter_supported: false,
  claims_parameter_supported: false,
  backchannel_logout_supported: false,
  backchannel_logout_session_supported: false,
} as const;

export interface DiscoveryDeps {
  readonly config: Config;
  readonly tenants: TenantDirectory;
  readonly uiLocales: UiLocalesResolver;
}

export function discoveryRoute(deps: DiscoveryDeps): Route {
  const cache = createDocumentCache();
  return { method: 'GET', pattern: DISCOVERY_PATH, handler: withErrorReplies((req) => handleDiscovery(req, deps, cache)), immediate: (req) => heldDiscovery(req, deps, cache) };
}

async function handleDiscovery(req: HttpRequest, deps: DiscoveryDeps, cache: DocumentCache): Promise<HttpReply> {
  const instance = await requireInstance(deps.tenants, req);
  const languages = await deps.uiLocales(instance.id);
  return documentReply(req, cache.replies(instance.id, languages, req, deps.config));
}

const ignore = (): void => {};

/**
 * The same reply when the Host's instance is known, its languages held and this issuer's document
 * built: answered before admission (router.ts `immediateRoutes`). Anything else (a first request,
 * a malformed Host) takes the handler's path.
 */
function heldDiscovery(req: HttpRequest, deps: DiscoveryDeps, cache: DocumentCache): WholeReply | undefined {
  const instance = knownUsableInstance(deps.tenants, req);
  if (instance === undefined) return undefined;
  const languages = deps.uiLocales(instance.id);
  if (languages instanceof Promise) {
    languages.catch(ignore); // the handler's path awaits the same load and answers its failure
    return undefined;
  }
  const replies = cache.built(instance.id, languages, req);
  return replies === undefined ? undefined : documentReply(req, replies);
}

function documentReply(req: HttpRequest, replies: DocumentReplies): WholeReply {
  return isNotModified(req.headers['if-none-match'], replies.etag) ? replies.notModified : replies.ok;
}

/** The discovery document of an issuer. */
export function toDiscoveryDocument(issuer: string, uiLocales: readonly string[]): Record<string, unknown> {
  const endpoints = Object.fromEntries(Object.entries(ENDPOINT_PATHS).map(([name, path]) => [name, `${issuer}${path}`]));
  return { issuer, ...endpoints, ...STATIC_METADATA, ui_locales_supported: uiLocales };
}

const CONTENT_TYPE = 'application/json';
const CACHE_CONTROL = 'max-age=300';
/** Cap on instances held; the Host port is the client's, so hosts per instance are capped too. */
const MAX_INSTANCES = 10_000;
const MAX_HOSTS_PER_INSTANCE = 32;

/** The serialized document of one issuer with its strong ETag, and the two replies built once. */
interface DocumentReplies {
  readonly etag: string;
  readonly ok: WholeReply;
  readonly notModified: WholeReply;
}

/** One instance's documents: by scheme, then by the raw Host header (with the config, it fixes the issuer). */
interface InstanceDocuments {
  /** The language list the documents were built with (by identity: the resolver keeps it while the settings row is unchanged). */
  readonly languages: readonly string[];
  readonly http: Map<string, DocumentReplies>;
  readonly https: Map<string, DocumentReplies>;
}

interface DocumentCache {
  replies(instanceId: string, languages: readonly string[], req: HttpRequest, config: Config): DocumentReplies;
  /** The replies when they are built already (same languages, scheme and Host), else undefined. */
  built(instanceId: string, languages: readonly string[], req: HttpRequest): DocumentReplies | undefined;
}

/**
 * Serialized replies per instance and issuer: a hit is two Map lookups and no allocation. An
 * instance's documents are dropped when its language list changes (by identity). The issuer is
 * computed only on a miss.
 */
function createDocumentCache(): DocumentCache {
  const instances = new Map<string, InstanceDocuments>();
  return {
    built(instanceId, languages, req) {
      const documents = instances.get(instanceId);
      if (documents === undefined || documents.languages !== languages) return undefined;
      return (req.scheme === 'https' ? documents.https : documents.http).get(req.headers.host ?? '');
    },
    replies(instanceId, languages, req, config) {
      let documents = instances.get(instanceId);
      if (documents === undefined || documents.languages !== languages) {
        if (documents === undefined && instances.size >= MAX_INSTANCES) instances.clear();
        documents = { languages, http: new Map(), https: new Map() };
        instances.set(instanceId, documents);
      }
      const byHost = req.scheme === 'https' ? documents.https : documents.http;
      const host = req.headers.host ?? '';
      const hit = byHost.get(host);
      if (hit !== undefined) return hit;
      const issuer = issuerFor(config, req);
      if (issuer === undefined) throw invalidArgument('request.invalid_host', 'the Host header is malformed');
      const built = documentReplies(JSON.stringify(toDiscoveryDocument(issuer, languages)));
      if (byHost.size >= MAX_HOSTS_PER_INSTANCE) byHost.clear();
      byHost.set(host, built);
      return built;
    },
  };
}

function documentReplies(body: string): DocumentReplies {
  const bytes = Buffer.from(body, 'utf8');
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  const headers = Object.freeze({ 'cache-control': CACHE_CONTROL, etag });
  return {
    etag,
    ok: { status: 200, headers: Object.freeze({ 'content-type': CONTENT_TYPE, ...headers }), body: bytes },
    notModified: { status: 304, headers },
  };
}
