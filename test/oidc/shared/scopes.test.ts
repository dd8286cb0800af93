/** Scope acceptance for token grants (reference facts §5.1) and refresh subsets (RFC 6749 §6). */
import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../../actors/index.js';
import { grantScopes, isScopeSubset, parseScopeParam, projectOfAudienceScope } from '../../../src/oidc/shared/scopes.js';

const subject = { orgId: 'o1', orgPrimaryDomain: 'acme.example.com', projectRoles: ['reader'] };
const P = 'urn:platform:iam:';

describe('parseScopeParam', () => {
  it('splits, drops empty parts and duplicates', () => {
    expect(parseScopeParam(' openid  profile openid ')).toEqual(['openid', 'profile']);
    expect(parseScopeParam('openid profile openid email profile')).toEqual(['openid', 'profile', 'email']);
    expect(parseScopeParam('openid profile')).toEqual(['openid', 'profile']);
    expect(parseScopeParam('')).toEqual([]);
    expect(parseScopeParam(undefined)).toEqual([]);
  });

  it('refuses more than 100 scopes, counted after empty parts are dropped', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `s${i}`);
    expect(parseScopeParam(`${hundred.join('  ')} `)).toHaveLength(100);
    expect(() => parseScopeParam([...hundred, 's100'].join(' '))).toThrow(OAuthError);
  });

  it.each(['openid "x"', 'a\\b', 'caf\u00e9'])('refuses the malformed scope %j with invalid_scope', (value) => {
    let code: string | undefined;
    try {
      parseScopeParam(value);
    } catch (error) {
      code = error instanceof OAuthError ? error.oauthCode : 'other';
    }
    expect(code).toBe('invalid_scope');
  });
});

describe('grantScopes', () => {
  it('keeps standard and known custom scopes, drops unknown and foreign ones', () => {
    const requested = [
      'openid',
      'offline_access',
      'custom',
      `${P}user:metadata`,
      `${P}org:id:o1`,
      `${P}org:id:o2`,
      `${P}org:domain:primary:ACME.example.com`,
      `${P}org:domain:primary:other.example.com`,
      `${P}org:project:role:reader`,
      `${P}org:project:role:writer`,
      `${P}org:project:id:p9:aud`,
      `${P}org:project:id:platform:aud`,
      `${P}org:roles:id:o1`,
      `${P}org:idp:id:`,
      'urn:other:thing',
    ];
    expect(grantScopes(requested, subject)).toEqual({
      scopes: [
        'openid',
        'offline_access',
        `${P}user:metadata`,
        `${P}org:id:o1`,
        `${P}org:domain:primary:ACME.example.com`,
        `${P}org:project:role:reader`,
        `${P}org:project:id:p9:aud`,
        `${P}org:project:id:platform:aud`,
        `${P}org:roles:id:o1`,
      ],
      projectAudience: ['p9', 'platform'],
    });
  });

  it('reads project ids only from well-formed audience scopes', () => {
    expect(projectOfAudienceScope(`${P}org:project:id:123:aud`)).toBe('123');
    expect(projectOfAudienceScope(`${P}org:project:id::aud`)).toBeUndefined();
    expect(projectOfAudienceScope(`${P}org:project:id:1:2:aud`)).toBeUndefined();
  });

  it('checks refresh scopes as subsets', () => {
    expect(isScopeSubset(['openid'], ['openid', 'email'])).toBe(true);
    expect(isScopeSubset([], ['openid'])).toBe(true);
    expect(isScopeSubset(['openid', 'phone'], ['openid', 'email'])).toBe(false);
  });
});
