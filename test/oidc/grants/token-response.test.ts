/** The token endpoint's reply text from fragments is exactly JSON.stringify of the response. */
import { describe, expect, it } from 'vitest';
import { type TokenResponse, tokenResponseJson } from '../../../src/oidc/grants/token-response.js';

const cases: TokenResponse[] = [
  { access_token: 'abcDEF012-_xyz', token_type: 'Bearer', expires_in: 43200, scope: 'openid urn:platform:iam:org:id:123' },
  { access_token: 'eyJh.eyJz.c2ln', token_type: 'Bearer', expires_in: 0, scope: '', id_token: 'eyJ.a.b', refresh_token: 'r-_1' },
  { access_token: 'x', token_type: 'N_A', expires_in: 60, scope: 'a', issued_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
  // Characters that JSON must escape: quote, backslash, control characters, non-ASCII.
  { access_token: 'a"b\\c', token_type: 'Bearer', expires_in: 1, scope: 'tab\there \u0001 é \u2028 \ud800' },
];

describe('tokenResponseJson', () => {
  it.each(cases.map((c, i) => [i, c] as const))('case %i equals JSON.stringify and parses back', (_i, response) => {
    const text = tokenResponseJson(response);
    expect(text).toBe(JSON.stringify(response));
    expect(JSON.parse(text)).toEqual(response);
  });

  it('differs when the response differs (positive control of the comparison)', () => {
    expect(tokenResponseJson({ access_token: 'a', token_type: 'Bearer', expires_in: 1, scope: 's' })).not.toBe(
      JSON.stringify({ access_token: 'a', token_type: 'Bearer', expires_in: 2, scope: 's' }),
    );
  });
});
