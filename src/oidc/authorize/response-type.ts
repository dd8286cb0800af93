/**
 * response_type and response_mode (OIDC Core §3, OAuth 2.0 Multiple Response Types §2.1,
 * Form Post Response Mode): code, id_token and "id_token token" exist; the app must allow the
 * one asked for. An invalid response_mode is ignored; the default follows the response type.
 */
import { OAuthError, type OidcConfig, type OidcResponseType } from '../../../actors/index.js';
import type { ResponseMode, ResponseType } from '../shared/auth-requests.js';

const RESPONSE_TYPES = {
  code: 'code',
  id_token: 'id_token',
  'id_token token': 'id_token_token',
  'token id_token': 'id_token_token',
} as const satisfies Record<string, OidcResponseType>;

const MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post'];

/** The requested response_type, normalised; undefined when absent or unknown. */
export function parseResponseType(value: string | undefined): ResponseType | undefined {
  if (value === undefined || !Object.hasOwn(RESPONSE_TYPES, value)) return undefined;
  const app = RESPONSE_TYPES[value as keyof typeof RESPONSE_TYPES];
  return app === 'id_token_token' ? 'id_token token' : app;
}

/** The response mode: a valid response_mode, else the default of the response type. */
export function resolveResponseMode(value: string | undefined, responseType: ResponseType | undefined): ResponseMode {
  if (value !== undefined && (MODES as readonly string[]).includes(value)) return value as ResponseMode;
  return responseType === undefined || responseType === 'code' ? 'query' : 'fragment';
}

/** Throws unsupported_response_type / unauthorized_client. */
export function checkResponseType(value: string | undefined, oidc: OidcConfig): ResponseType {
  if (value === undefined) throw new OAuthError('invalid_request', 'the parameter response_type is required');
  const responseType = parseResponseType(value);
  if (responseType === undefined) throw new OAuthError('unsupported_response_type', 'the response_type is not supported');
  const appType: OidcResponseType = responseType === 'id_token token' ? 'id_token_token' : responseType;
  if (!oidc.responseTypes.includes(appType)) throw new OAuthError('unauthorized_client', 'the client may not use this response_type');
  return responseType;
}
