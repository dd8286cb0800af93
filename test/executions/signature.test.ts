/** Platform-Signature: HMAC-SHA256 over "<t>." + body, one v1 per key, 300 s tolerance. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from '../../src/executions/signature.js';

describe('signature header', () => {
  const body = '{"a":1}';

  it('is t=<unix>,v1=<hex hmac of "<t>." + body>', () => {
    const header = signatureHeader(body, ['key-1'], 1_700_000_000);
    const expected = createHmac('sha256', 'key-1').update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected}`);
    expect(verifySignature(header, body, 'key-1', 1_700_000_100)).toBe(true);
  });

  it('carries one v1 per key while a rotated key is still valid', () => {
    const header = signatureHeader(body, ['new', 'old'], 1_700_000_000);
    expect(header.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(verifySignature(header, body, 'old', 1_700_000_000)).toBe(true);
    expect(verifySignature(header, body, 'new', 1_700_000_000)).toBe(true);
  });

  it('rejects another key, another body and stale timestamps', () => {
    const header = signatureHeader(body, ['key-1'], 1_700_000_000);
    expect(verifySignature(header, body, 'key-2', 1_700_000_000)).toBe(false);
    expect(verifySignature(header, '{"a":2}', 'key-1', 1_700_000_000)).toBe(false);
    expect(verifySignature(header, body, 'key-1', 1_700_000_301)).toBe(false);
    expect(verifySignature('v1=00', body, 'key-1', 1_700_000_000)).toBe(false);
  });
});
