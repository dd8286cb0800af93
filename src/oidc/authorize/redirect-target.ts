/**
 * The client and redirect URI of an authorization request (RFC 6749 §3.1.2, §4.1.2.1): the
 * client must be a usable OIDC app and redirect_uri must exactly equal a registered one. Until
 * both are known nothing may be sent to the redirect URI, so these errors are not redirectable
 * (the browser gets an error page on the server).
 */
import { OAuthError, type ActorSystem, type OidcConfig } from '../../../actors/index.js';
import { findAppByClientId, type ClientApp } from '../../query/app-clients.js';
import type { FormParams } from '../shared/form.js';

export interface RedirectTarget {
  readonly client: ClientApp;
  readonly oidc: OidcConfig;
  readonly redirectUri: string;
}

function pageError(code: 'invalid_request' | 'invalid_client', message: string): OAuthError {
  return new OAuthError(code, message, { redirectable: false });
}

export async function resolveRedirectTarget(actors: ActorSystem, instanceId: string, params: FormParams): Promise<RedirectTarget> {
  const clientId = params.get('client_id');
  if (clientId === undefined) throw pageError('invalid_request', 'the parameter client_id is required');
  const client = await findAppByClientId(actors, instanceId, clientId);
  const config = client?.app.state.config;
  if (client === undefined || config === undefined || config.type !== 'oidc') throw pageError('invalid_client', 'the client is unknown');
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined) throw pageError('invalid_request', 'the parameter redirect_uri is required');
  if (!config.oidc.redirectUris.includes(redirectUri)) throw pageError('invalid_request', 'the redirect_uri is not registered for the client');
  return { client, oidc: config.oidc, redirectUri };
}
