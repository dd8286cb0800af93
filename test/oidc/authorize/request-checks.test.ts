/** The authorization request checks, each error of the seed's authorize table by its `error` value. */
import { describe, expect, it } from 'vitest';
import { OAuthError, type OidcConfig } from '../../../actors/index.js';
import { checkMaxAge, checkNonce, checkPkce, checkPrompt, checkScope } from '../../../src/oidc/authorize/request-checks.js';
import { checkResponseType, resolveResponseMode } from '../../../src/oidc/authorize/response-type.js';

const oidc = (overrides: Partial<OidcConfig> = {}): OidcConfig => ({
  appType: 'web',
  redirectUris: ['https://app.example.com/cb'],
  postLogoutRedirectUris: [],
  responseTypes: ['code'],
  grantTypes: ['authorization_code'],
  authMethod: 'basic',
  accessTokenType: 'bearer',
  idTokenUserinfoAssertion: false,
  idTokenRoleAssertion: false,
  accessTokenRoleAssertion: false,
  clockSkewMs: 0,
  devMode: false,
  additionalOrigins: [],
  skipNativeAppSuccessPage: false,
  ...overrides,
});

function oauthCodeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof OAuthError) return error.oauthCode;
    throw error;
  }
}

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('authorize request checks', () => {
  it.each([
    ['missing response_type', () => checkResponseType(undefined, oidc()), 'invalid_request'],
    ['unknown response_type', () => checkResponseType('token', oidc()), 'unsupported_response_type'],
    ['response_type not allowed for the app', () => checkResponseType('id_token', oidc()), 'unauthorized_client'],
    ['scope without openid', () => checkScope('profile email'), 'invalid_scope'],
    ['no scope', () => checkScope(undefined), 'invalid_scope'],
    ['public client without PKCE', () => checkPkce({}, oidc({ authMethod: 'none', appType: 'user_agent' }), 'code'), 'invalid_request'],
    ['PKCE plain', () => checkPkce({ challenge: CHALLENGE, method: 'plain' }, oidc(), 'code'), 'invalid_request'],
    ['PKCE challenge without method (plain)', () => checkPkce({ challenge: CHALLENGE }, oidc(), 'code'), 'invalid_request'],
    ['PKCE challenge malformed', () => checkPkce({ challenge: 'short', method: 'S256' }, oidc(), 'code'), 'invalid_request'],
    ['implicit without nonce', () => checkNonce(undefined, 'id_token'), 'invalid_request'],
    ['unknown prompt', () => checkPrompt('consent_please'), 'invalid_request'],
    ['prompt none with login', () => checkPrompt('none login'), 'invalid_request'],
    ['prompt none with consent', () => checkPrompt('none consent'), 'invalid_request'],
    ['negative max_age', () => checkMaxAge('-1'), 'invalid_request'],
  ])('%s → %s', (_, check, error) => {
    expect(oauthCodeOf(check)).toBe(error);
  });

  it('accepts prompt=consent alone and with login / select_account, satisfied at once (not passed on)', () => {
    expect(checkPrompt('consent')).toEqual([]);
    expect(checkPrompt('login consent')).toEqual(['login']);
    expect(checkPrompt('consent select_account')).toEqual(['select_account']);
  });

  it('accepts a valid request', () => {
    expect(checkResponseType('code', oidc())).toBe('code');
    expect(checkScope('openid profile openid')).toEqual(['openid', 'profile']);
    expect(checkPkce({ challenge: CHALLENGE, method: 'S256' }, oidc({ authMethod: 'none', appType: 'native' }), 'code')).toBe(CHALLENGE);
    expect(checkPkce({}, oidc(), 'code')).toBeUndefined();
    expect(checkPrompt('select_account')).toEqual(['select_account']);
    expect(checkMaxAge('0')).toBe(0);
  });

  it.each([
    [undefined, 'code', 'query'],
    ['fragment', 'code', 'fragment'],
    ['form_post', 'code', 'form_post'],
    ['bogus', 'code', 'query'],
    [undefined, 'id_token', 'fragment'],
    ['bogus', 'id_token token', 'fragment'],
  ] as const)('response_mode %s with %s → %s', (mode, type, expected) => {
    expect(resolveResponseMode(mode, type)).toBe(expected);
  });
});
