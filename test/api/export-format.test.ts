/** The export document's value mappings: enum names both ways, proto3 JSON durations. */
import { describe, expect, it } from 'vitest';
import { appTypeNames, durationToMs, genders, grantTypeNames, msToDuration, oidcAuthMethodNames, responseTypeNames, validationTypes } from '../../src/api/admin/v1/export-format.js';

describe('export format', () => {
  it('maps every enum name both ways and refuses unknown names', () => {
    for (const [mapping, values] of [
      [genders, ['unspecified', 'female', 'male', 'diverse']],
      [validationTypes, ['dns', 'http']],
      [appTypeNames, ['web', 'user_agent', 'native']],
      [responseTypeNames, ['code', 'id_token', 'id_token_token']],
      [grantTypeNames, ['authorization_code', 'implicit', 'refresh_token', 'device_code', 'token_exchange']],
      [oidcAuthMethodNames, ['basic', 'post', 'none', 'private_key_jwt']],
    ] as const) {
      for (const value of values) expect((mapping.toDomain as (n: string) => string | undefined)(mapping.toWire(value as never))).toBe(value);
      expect(mapping.toDomain('NOPE')).toBeUndefined();
    }
    expect(genders.toWire('female')).toBe('GENDER_FEMALE');
  });

  it('writes and reads proto3 JSON durations', () => {
    for (const ms of [0, 1, 500, 1500, 5000]) expect(durationToMs(msToDuration(ms))).toBe(ms);
    expect(msToDuration(1500)).toBe('1.5s');
    expect(durationToMs('2s')).toBe(2000);
    for (const bad of ['', '1', '1m', '-1s', '1.s', 's']) expect(durationToMs(bad)).toBeUndefined();
  });
});
