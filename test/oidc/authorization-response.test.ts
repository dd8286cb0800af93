/** Authorization responses per response mode (query, fragment, form_post) with state and iss (RFC 9207). */
import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../actors/index.js';
import { toAuthorizationError, toAuthorizationResponse } from '../../src/oidc/shared/authorization-response.js';

const redirectUri = 'https://app.example.com/cb?keep=1';
const issuer = 'https://auth.example.com:8443';

describe('authorization responses', () => {
  it('query keeps the redirect URI query and appends code, state and iss', () => {
    const reply = toAuthorizationResponse({ redirectUri, responseMode: 'query', state: 'a b', issuer }, { code: 'c1' });
    expect(reply.status).toBe(303);
    expect(reply.headers?.['location']).toBe('https://app.example.com/cb?keep=1&code=c1&state=a+b&iss=https%3A%2F%2Fauth.example.com%3A8443');
  });

  it('fragment puts the parameters after #', () => {
    const reply = toAuthorizationError({ redirectUri, responseMode: 'fragment', state: 's', issuer }, new OAuthError('login_required', 'log in'));
    const location = new URL(String(reply.headers?.['location']));
    expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toEqual({ error: 'login_required', error_description: 'log in', state: 's', iss: issuer });
  });

  it('form_post renders an escaped auto-submitting form with a nonce CSP limited to the redirect origin', () => {
    const reply = toAuthorizationResponse({ redirectUri, responseMode: 'form_post', state: '"><script>', issuer }, { code: 'c1' });
    expect(reply.status).toBe(200);
    const body = String(reply.body);
    expect(body).toContain('action="https://app.example.com/cb?keep=1"');
    expect(body).toContain('value="&#34;&#62;&#60;script&#62;"');
    expect(body).toContain('<input type="hidden" name="iss" value="https://auth.example.com:8443">');
    const csp = String(reply.headers?.['content-security-policy']);
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(body).toContain(`<script nonce="${nonce}">`);
    expect(csp).toContain('form-action https://app.example.com');
  });
});
