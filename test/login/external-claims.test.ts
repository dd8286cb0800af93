/** The external user read from a provider's claims: standard claims and the fallbacks account creation relies on. */
import { describe, expect, it } from 'vitest';
import { ExternalLoginError, externalUserOf } from '../../src/login/external/provider.js';

describe('externalUserOf', () => {
  it('takes sub, preferred_username, the verified email and the names', () => {
    expect(
      externalUserOf({ sub: 'ext-1', preferred_username: 'bert', email: 'bert@example.com', email_verified: true, given_name: 'Bert', family_name: 'Brown', name: 'Bert Brown' }),
    ).toEqual({ externalUserId: 'ext-1', externalUsername: 'bert', email: 'bert@example.com', emailVerified: true, givenName: 'Bert', familyName: 'Brown', displayName: 'Bert Brown' });
  });

  it('falls back to the email / sub as username and splits `name`; an unverified or absent email is not verified', () => {
    expect(externalUserOf({ sub: 'ext-2', email: 'c@example.com', name: 'Carla Maria Local' })).toMatchObject({
      externalUsername: 'c@example.com',
      emailVerified: false,
      givenName: 'Carla',
      familyName: 'Maria Local',
      displayName: 'Carla Maria Local',
    });
    expect(externalUserOf({ sub: 'ext-3', email_verified: true })).toMatchObject({ externalUsername: 'ext-3', email: '', emailVerified: false, givenName: 'ext-3', familyName: 'ext-3' });
    // email_verified must be the boolean true (a string "true" is not a verification).
    expect(externalUserOf({ sub: 'ext-4', email: 'd@example.com', email_verified: 'true' }).emailVerified).toBe(false);
  });

  it('refuses claims without a subject', () => {
    expect(() => externalUserOf({ email: 'x@example.com' })).toThrow(ExternalLoginError);
    expect(() => externalUserOf({ sub: '  ' })).toThrow(ExternalLoginError);
  });
});
