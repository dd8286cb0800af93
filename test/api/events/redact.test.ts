/**
 * Event payload redaction (src/api/resources/events/redact.ts): every key of REDACTED_KEYS and
 * any secret-sounding field is replaced and reported by path, nested and in arrays; flags and
 * counters under such names, and ordinary fields, stay as they are (control).
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, REDACTED_KEYS, redactPayload } from '../../../src/api/resources/events/redact.js';

describe('redactPayload', () => {
  it.each([...REDACTED_KEYS])('redacts %s at the top level and nested', (key) => {
    const { payload, redacted } = redactPayload({ [key]: 'secret-value', name: 'kept', nested: { [key]: { deep: 'secret-value' } }, list: [{ [key]: 'secret-value' }] });
    expect(payload).toEqual({ [key]: REDACTED, name: 'kept', nested: { [key]: REDACTED }, list: [{ [key]: REDACTED }] });
    expect(redacted).toEqual([key, `nested.${key}`, `list[0].${key}`]);
    expect(JSON.stringify(payload)).not.toContain('secret-value');
  });

  it('redacts fields whose names say secret, whatever the exact name', () => {
    const { payload, redacted } = redactPayload({ config: { clientSecret: 's', newSecretDigest: 'd', sealedApiKey: 'k', privateKeyJwk: { d: 'x' }, password: 'p' } });
    expect(payload).toEqual({ config: { clientSecret: REDACTED, newSecretDigest: REDACTED, sealedApiKey: REDACTED, privateKeyJwk: REDACTED, password: REDACTED } });
    expect(redacted).toEqual(['config.clientSecret', 'config.newSecretDigest', 'config.sealedApiKey', 'config.privateKeyJwk', 'config.password']);
  });

  it('keeps flags, counters, policies and ordinary fields (control)', () => {
    const input = {
      passwordChangeRequired: true,
      failedPasswordAttempts: 3,
      secretStored: false,
      passwordComplexity: { minLength: 8 },
      accessTokenType: 'jwt',
      tokenId: '42',
      username: 'bot',
      publicKey: { kty: 'RSA', n: 'abc', e: 'AQAB' },
    };
    const { payload, redacted } = redactPayload(input);
    expect(payload).toEqual(input);
    expect(redacted).toEqual([]);
  });

  it('turns non-JSON values into JSON and never shows raw bytes', () => {
    const { payload, redacted } = redactPayload({ big: 12n, at: new Date(0), bytes: new Uint8Array([1, 2]), gone: undefined, nan: Number.NaN });
    expect(payload).toEqual({ big: '12', at: '1970-01-01T00:00:00.000Z', bytes: REDACTED, nan: null });
    expect(redacted).toEqual(['bytes']);
    expect(redactPayload(null).payload).toEqual({});
    expect(redactPayload('text').payload).toEqual({ value: 'text' });
  });
});
