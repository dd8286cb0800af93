/**
 * The login UI as an OpenID Connect relying party of an external IDP (forge / forge
 * self-hosted), through oauth4webapi: discovery from the issuer (cached briefly per issuer),
 * the authorization URL (code flow with PKCE S256, state and nonce), the code exchange with
 * client_secret_basic (or _post when the provider only offers that), ID token validation with
 * the nonce, and userinfo for the claims the ID token lacks. Both IDP types share this path:
 * the hosted forge's issuer comes from TESSERA_FORGE_ISSUER. Every request goes through the
 * outbound policy (src/http/outbound-policy.ts): the issuer is a URL a tenant configured.
 * oauth4webapi loads on the first external login, not with the node (idle memory, #13).
 */
import type * as oauth from 'oauth4webapi';
import type { ActiveIdp } from '../../../actors/index.js';
import { guardedFetch, PUBLIC_ONLY, type OutboundPolicy } from '../../http/outbound-policy.js';
import { lazyModule } from '../../runtime/lazy-module.js';

/** Every request to the provider gives up after this long (the browser waits on it). */
const PROVIDER_TIMEOUT_MS = 10_000;
const DISCOVERY_TTL_MS = 5 * 60_000;
const MAX_CACHED_ISSUERS = 100;

type OAuthLibrary = typeof oauth;
let library: OAuthLibrary | undefined;
/** oauth4webapi, imported once on first use. */
const loadLibrary = lazyModule(() => import('oauth4webapi').then((loaded) => (library = loaded)));

/** What the login needs to know about the external user (OIDC Core §5.1 standard claims). */
export interface ExternalUser {
  /** `sub` at the provider: the stable external user id. */
  readonly externalUserId: string;
  /** `preferred_username`, else the email, else `sub`. */
  readonly externalUsername: string;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly givenName: string;
  readonly familyName: string;
  readonly displayName: string;
}

export interface AuthorizationStart {
  readonly url: string;
  readonly codeVerifier: string;
  readonly nonce: string;
}

/**
 * The provider refused or answered something invalid; the login shows an error page. `refused`:
 * the provider sent the browser back with an OAuth error (the user cancelled, access denied).
 */
export class ExternalLoginError extends Error {
  readonly refused: boolean;
  constructor(message: string, options: { cause?: unknown; refused?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.refused = options.refused ?? false;
  }
}

interface Discovered {
  readonly as: oauth.AuthorizationServer;
  readonly expiresAt: number;
}

export interface ExternalProvider {
  start(idp: ActiveIdp, redirectUri: string, state: string): Promise<AuthorizationStart>;
  /** Exchanges the code of the callback URL and returns the external user. */
  finish(idp: ActiveIdp, callbackUrl: URL, expected: { readonly state: string; readonly nonce: string; readonly codeVerifier: string; readonly redirectUri: string }): Promise<ExternalUser>;
}

export function createExternalProvider(forgeIssuer: string, now: () => number = Date.now, outbound: OutboundPolicy = PUBLIC_ONLY): ExternalProvider {
  const discovered = new Map<string, Discovered>();
  const fetchGuarded = guardedFetch(outbound);

  function issuerOf(idp: ActiveIdp): URL {
    return new URL(idp.idpType === 'forge' ? forgeIssuer : idp.issuer);
  }

  // An http issuer is accepted as configured (the IDP API allows it, e.g. inside a private network).
  function requestOptions(lib: OAuthLibrary, issuer: URL) {
    return { [lib.allowInsecureRequests]: issuer.protocol === 'http:', [lib.customFetch]: fetchGuarded, signal: () => AbortSignal.timeout(PROVIDER_TIMEOUT_MS) };
  }

  async function discover(lib: OAuthLibrary, issuer: URL): Promise<oauth.AuthorizationServer> {
    const key = issuer.href;
    const cached = discovered.get(key);
    if (cached !== undefined && cached.expiresAt > now()) return cached.as;
    const as = await lib.processDiscoveryResponse(issuer, await lib.discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(lib, issuer) }));
    if (discovered.size >= MAX_CACHED_ISSUERS) discovered.delete(discovered.keys().next().value!);
    discovered.set(key, { as, expiresAt: now() + DISCOVERY_TTL_MS });
    return as;
  }

  function clientAuth(lib: OAuthLibrary, as: oauth.AuthorizationServer, idp: ActiveIdp): oauth.ClientAuth {
    const methods = as.token_endpoint_auth_methods_supported;
    // client_secret_basic is the default when the provider lists nothing (OIDC Discovery §3).
    const postOnly = methods !== undefined && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    const secret = idp.clientSecret();
    return postOnly ? lib.ClientSecretPost(secret) : lib.ClientSecretBasic(secret);
  }

  return {
    async start(idp, redirectUri, state) {
      const lib = await wrap(loadLibrary);
      const as = await wrap(() => discover(lib, issuerOf(idp)));
      if (as.authorization_endpoint === undefined) throw new ExternalLoginError('the provider has no authorization endpoint');
      const codeVerifier = lib.generateRandomCodeVerifier();
      const nonce = lib.generateRandomNonce();
      const url = new URL(as.authorization_endpoint);
      const params = {
        client_id: idp.clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: idp.scopes.join(' '),
        state,
        nonce,
        code_challenge: await lib.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { url: url.href, codeVerifier, nonce };
    },

    async finish(idp, callbackUrl, expected) {
      const issuer = issuerOf(idp);
      return wrap(async () => {
        const lib = await loadLibrary();
        const as = await discover(lib, issuer);
        const client: oauth.Client = { client_id: idp.clientId };
        const params = lib.validateAuthResponse(as, client, callbackUrl, expected.state);
        const response = await lib.authorizationCodeGrantRequest(as, client, clientAuth(lib, as, idp), params, expected.redirectUri, expected.codeVerifier, requestOptions(lib, issuer));
        const tokens = await lib.processAuthorizationCodeResponse(as, client, response, { expectedNonce: expected.nonce, requireIdToken: true });
        const claims = lib.getValidatedIdTokenClaims(tokens)!;
        // Userinfo only when the ID token lacks what linking and creation use (one round trip saved).
        const needsUserinfo = claims.email === undefined || (claims.given_name === undefined && claims.name === undefined);
        const info = needsUserinfo && as.userinfo_endpoint !== undefined
          ? await lib.processUserInfoResponse(as, client, claims.sub, await lib.userInfoRequest(as, client, tokens.access_token, requestOptions(lib, issuer)))
          : {};
        return externalUserOf({ ...info, ...claims });
      });
    },
  };
}

async function wrap<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ExternalLoginError) throw error;
    // Network failures, protocol errors and invalid responses all mean "the provider login failed".
    // The library is loaded whenever it could have thrown its own error.
    const refused = library !== undefined && error instanceof library.AuthorizationResponseError;
    throw new ExternalLoginError(error instanceof Error ? error.message : String(error), { cause: error, refused });
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

/** The external user of the provider's claims (ID token over userinfo), with the fallbacks creation needs. */
export function externalUserOf(claims: Readonly<Record<string, unknown>>): ExternalUser {
  const sub = text(claims.sub);
  if (sub === '') throw new ExternalLoginError('the provider returned no subject');
  const email = text(claims.email);
  const name = text(claims.name);
  const username = text(claims.preferred_username) || email || sub;
  const givenName = text(claims.given_name) || name.split(' ')[0] || username;
  const familyName = text(claims.family_name) || name.split(' ').slice(1).join(' ') || givenName;
  return {
    externalUserId: sub,
    externalUsername: username,
    email,
    emailVerified: email !== '' && claims.email_verified === true,
    givenName,
    familyName,
    displayName: name || `${givenName} ${familyName}`.trim(),
  };
}
