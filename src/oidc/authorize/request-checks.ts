/**
 * The redirectable checks of an authorization request: scope must contain openid (OIDC Core
 * §3.1.2.1 → invalid_scope); PKCE S256 only, and required for public clients (RFC 7636 §4.3,
 * §4.4.1; `plain` refused); nonce required for implicit responses (OIDC Core §3.2.2.1); prompt
 * values known and `none` alone; max_age a non-negative integer. `prompt=consent` (OIDC Core
 * §3.1.2.1) is accepted and satisfied at once: every app is first-party and has no consent
 * screen yet, so it never reaches the auth-request machine. Request objects (`request`,
 * `request_uri`, OIDC Core §6) are not supported and are refused as §3.1.2.6 asks rather than
 * ignored: their claims could differ from the plain parameters.
 */
import { OAuthError, type AuthPrompt, type OidcConfig } from '../../../actors/index.js';
import type { ResponseType } from '../shared/auth-requests.js';

const PROMPTS: readonly (AuthPrompt | 'consent')[] = ['none', 'login', 'consent', 'select_account', 'create'];
const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_LENGTH = 2048;

function invalidRequest(message: string): OAuthError {
  return new OAuthError('invalid_request', message);
}

export function checkScope(value: string | undefined): string[] {
  const scopes = (value ?? '').split(' ').filter((s) => s !== '');
  if (!scopes.includes('openid')) throw new OAuthError('invalid_scope', 'the scope must contain openid');
  return [...new Set(scopes)];
}

export function checkPkce(params: { challenge?: string; method?: string }, oidc: OidcConfig, responseType: ResponseType): string | undefined {
  const { challenge, method } = params;
  if (method !== undefined && method !== 'S256') throw invalidRequest('code_challenge_method must be S256');
  if (challenge === undefined) {
    if (method !== undefined) throw invalidRequest('code_challenge is required with code_challenge_method');
    if (oidc.authMethod === 'none' && responseType === 'code') throw invalidRequest('code_challenge is required for public clients');
    return undefined;
  }
  if (method === undefined) throw invalidRequest('code_challenge_method must be S256'); // absent means plain (RFC 7636 §4.3)
  if (!CHALLENGE.test(challenge)) throw invalidRequest('code_challenge is malformed');
  return challenge;
}

export function checkNonce(nonce: string | undefined, responseType: ResponseType): string | undefined {
  if (nonce === undefined) {
    if (responseType !== 'code') throw invalidRequest('nonce is required for the implicit flow');
    return undefined;
  }
  if (nonce.length > MAX_LENGTH) throw invalidRequest('nonce is too long');
  return nonce;
}

export function checkPrompt(value: string | undefined): AuthPrompt[] {
  const prompts = (value ?? '').split(' ').filter((p) => p !== '');
  for (const prompt of prompts) if (!(PROMPTS as readonly string[]).includes(prompt)) throw invalidRequest('prompt has an unknown value');
  if (prompts.includes('none') && prompts.length > 1) throw invalidRequest('prompt none cannot be combined');
  return [...new Set(prompts)].filter((p) => p !== 'consent') as AuthPrompt[];
}

/** Throws request_not_supported / request_uri_not_supported when a request object is sent. */
export function checkNoRequestObject(request: string | undefined, requestUri: string | undefined): void {
  if (request !== undefined) throw new OAuthError('request_not_supported', 'the request parameter (request object) is not supported');
  if (requestUri !== undefined) throw new OAuthError('request_uri_not_supported', 'the request_uri parameter is not supported');
}

export function checkMaxAge(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(value)) throw invalidRequest('max_age must be a non-negative integer');
  return Number(value);
}

export function checkState(value: string | undefined): string | undefined {
  if (value !== undefined && value.length > MAX_LENGTH) throw new OAuthError('invalid_request', 'state is too long', { redirectable: false });
  return value;
}

export function parseUiLocales(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter((l) => l !== '' && l.length <= 35).slice(0, 10);
}
