/** Form parameters: the direct split for plain text gives exactly what URLSearchParams gives. */
import { describe, expect, it } from 'vitest';
import { parseUrlEncoded } from '../../../src/oidc/shared/form.js';

/** What parseUrlEncoded must return: URLSearchParams' pairs, empty values dropped. */
function reference(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) if (value !== '') out.set(name, value);
  return out;
}

describe('parseUrlEncoded', () => {
  it('reads plain and encoded text as URLSearchParams does', () => {
    const texts = [
      'grant_type=client_credentials&scope=openid',
      'grant_type=client_credentials&scope=openid%20profile',
      'scope=openid+profile&grant_type=client_credentials',
      '?grant_type=x',
      'a=1&&b=2&',
      '&a=1',
      'a&b=2',
      'a=&b=2',
      'a==b&c=d=e',
      '=value&x=1',
      '',
      '&',
      'a=%E2%82%AC&b=%zz',
      'client_id=abc&client_secret=s3cr%2Bt',
      // `+` without `%`: split directly, `+` read as a space (names too)
      'grant_type=client_credentials&scope=openid+profile',
      'a+b=c+d&+=+&x=++',
      'scope=+openid++profile+&a=',
      'a+=1&a=2',
    ];
    for (const text of texts) expect(new Map(parseUrlEncoded(text)), text).toEqual(reference(text));
  });

  it('refuses a repeated parameter on both paths (and allows a repeated audience)', () => {
    expect(() => parseUrlEncoded('scope=a&scope=b')).toThrow(/scope is repeated/);
    expect(() => parseUrlEncoded('scope=a+b&scope=b')).toThrow(/scope is repeated/);
    expect(parseUrlEncoded('audience=a&audience=b').get('audience')).toBe('a b');
    expect(parseUrlEncoded('scope=a').get('scope')).toBe('a');
  });
});
