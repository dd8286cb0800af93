/** Duration configuration values: text or milliseconds in, milliseconds out. */
import { describe, expect, it } from 'vitest';
import { parseDuration, parseRate } from '../../src/config/duration.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';

describe('parseDuration', () => {
  it.each([
    ['30d', 2_592_000_000],
    ['12h', 43_200_000],
    ['1h30m', 5_400_000],
    ['45s', 45_000],
    ['500ms', 500],
    ['1m500ms', 60_500],
    ['0', 0],
    ['1500', 1_500],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'h', '12y', '1.5h', '-1h', 'h12', '12h 30m', '30d!'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('key lifetime configuration', () => {
  it('defaults: RS256, rotation every 30 days, retired keys published 13 h', () => {
    expect(loadConfig({ env: {} })).toMatchObject({ signingAlgorithm: 'RS256', keyRotationInterval: 30 * 86_400_000, keyRetireAfter: 13 * 3_600_000 });
  });

  it('reads the environment', () => {
    const env = { TESSERA_SIGNING_ALGORITHM: 'ES256', TESSERA_KEY_ROTATION_INTERVAL: '0', TESSERA_KEY_RETIRE_AFTER: '1d' };
    expect(loadConfig({ env })).toMatchObject({ signingAlgorithm: 'ES256', keyRotationInterval: 0, keyRetireAfter: 86_400_000 });
  });

  it('names both keys when they are invalid', () => {
    try {
      loadConfig({ env: { TESSERA_SIGNING_ALGORITHM: 'HS256', TESSERA_KEY_ROTATION_INTERVAL: 'soon' } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain('TESSERA_SIGNING_ALGORITHM');
      expect(problems).toContain('TESSERA_KEY_ROTATION_INTERVAL');
    }
  });
});

describe('parseRate', () => {
  it.each([
    ['10/1m', { points: 10, windowMs: 60_000 }],
    ['1000/1s', { points: 1000, windowMs: 1_000 }],
    [' 5/1h30m ', { points: 5, windowMs: 5_400_000 }],
    ['off', 'off'],
  ])('reads %s', (text, rate) => {
    expect(parseRate(text)).toEqual(rate);
  });

  it.each(['', '10', '/1m', '0/1m', '-1/1m', '10/500ms', '10/1500ms', '10/1m/2', 'ten/1m', '10/forever', '1e3/1s'])('refuses %j', (text) => {
    expect(parseRate(text)).toBeUndefined();
  });
});
