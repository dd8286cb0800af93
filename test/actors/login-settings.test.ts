/** The login policy's decisions (actors/instance/commands/set-login-settings.ts) and its fold. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../actors/kernel/errors.js';
import { orgKind } from '../../actors/organization/org.js';
import { DEFAULT_LOGIN_SETTINGS, effectiveLoginSettings, loginSettingsKind, mfaRequired, type LoginSettings } from '../../actors/instance/login-settings.js';
import { resetLoginSettings, setLoginSettings } from '../../actors/instance/commands/set-login-settings.js';
import { context, given, record } from './decide.fixture.js';

const org = { kind: orgKind, record: record('o1', { name: 'Org', primaryDomain: 'org.example', domains: [] }, { type: 'instance', id: 'i1' }) };
const instanceRow = (over: Partial<LoginSettings>) => ({ kind: loginSettingsKind, record: record('i1', { ...DEFAULT_LOGIN_SETTINGS, ...over }, { type: 'instance', id: 'i1' }) });
const orgRow = (over: Partial<LoginSettings>) => ({ kind: loginSettingsKind, record: record('o1', { ...DEFAULT_LOGIN_SETTINGS, ...over }, { type: 'org', id: 'o1' }) });

function violations(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.violations.map((v) => v.field) : ['not-an-app-error'];
  }
  return [];
}

describe('login settings', () => {
  it('records only the changed fields at the instance; nothing when nothing changes', () => {
    const decision = setLoginSettings.decide(given([]), { settings: { allowRegister: false, allowUsernamePassword: true } }, context());
    expect(decision.events.map((e) => [e.type, e.aggregateId, e.payload])).toEqual([['instance.policy.login.set', 'i1', { allowRegister: false }]]);
    expect(setLoginSettings.decide(given([]), { settings: { secondFactors: [...DEFAULT_LOGIN_SETTINGS.secondFactors] } }, context()).events).toEqual([]);
  });

  it('gives an organization a whole copy of the instance’s policy on its first change, then only changes', () => {
    const first = setLoginSettings.decide(given([org, instanceRow({ allowRegister: false })]), { orgId: 'o1', settings: { forceMfa: true } }, context());
    expect(first.events).toHaveLength(1);
    expect(first.events[0]).toMatchObject({ type: 'org.policy.login.set', aggregateId: 'o1', owner: { type: 'org', id: 'o1' } });
    expect(first.events[0]!.payload).toEqual({ ...DEFAULT_LOGIN_SETTINGS, allowRegister: false, forceMfa: true });
    const later = setLoginSettings.decide(given([org, instanceRow({}), orgRow({ forceMfa: true })]), { orgId: 'o1', settings: { forceMfa: true, hidePasswordReset: true } }, context());
    expect(later.events.map((e) => e.payload)).toEqual([{ hidePasswordReset: true }]);
  });

  it('resets an organization’s own policy; a reset without one records nothing; unknown organizations are 404', () => {
    expect(resetLoginSettings.decide(given([org, orgRow({})]), { orgId: 'o1' }, context()).events.map((e) => e.type)).toEqual(['org.policy.login.removed']);
    expect(resetLoginSettings.decide(given([org]), { orgId: 'o1' }, context()).events).toEqual([]);
    expect(() => resetLoginSettings.decide(given([]), { orgId: 'o1' }, context())).toThrow(/organization not found/);
    expect(() => setLoginSettings.decide(given([]), { orgId: 'o1', settings: {} }, context())).toThrow(/organization not found/);
  });

  it('refuses a policy without a way in, or forced MFA without a second factor, naming the field', () => {
    const none = { allowUsernamePassword: false, allowExternalIdp: false, passwordlessAllowed: false };
    expect(violations(() => setLoginSettings.decide(given([]), { settings: none }, context()))).toEqual(['settings.allowUsernamePassword']);
    expect(violations(() => setLoginSettings.decide(given([]), { settings: { ...none, passwordlessAllowed: true } }, context()))).toEqual([]);
    expect(violations(() => setLoginSettings.decide(given([]), { settings: { forceMfaLocalOnly: true, secondFactors: [] } }, context()))).toEqual(['settings.secondFactors']);
    expect(violations(() => setLoginSettings.decide(given([]), { settings: { secondFactors: [] } }, context()))).toEqual([]);
  });

  it('folds sets and the reset; the effective policy names its owner', () => {
    const ev = (type: 'org.policy.login.set' | 'org.policy.login.removed', payload: object) => ({ type, payload }) as never;
    const own = loginSettingsKind.evolve(undefined, ev('org.policy.login.set', { ...DEFAULT_LOGIN_SETTINGS, forceMfa: true }));
    expect(own?.forceMfa).toBe(true);
    expect(loginSettingsKind.evolve(own, ev('org.policy.login.removed', {}))).toBeUndefined();
    expect(effectiveLoginSettings('i1', undefined, { orgId: 'o1', record: undefined }).owner).toEqual({ type: 'instance', id: 'i1' });
    expect(effectiveLoginSettings('i1', undefined, { orgId: 'o1', record: orgRow({}).record }).owner).toEqual({ type: 'org', id: 'o1' });
    expect(effectiveLoginSettings('i1', undefined).settings).toEqual(DEFAULT_LOGIN_SETTINGS);
  });

  it('forces MFA for everyone, or only for logins not through an external IdP', () => {
    const s = (over: Partial<LoginSettings>) => ({ ...DEFAULT_LOGIN_SETTINGS, ...over });
    expect([mfaRequired(s({}), false), mfaRequired(s({}), true)]).toEqual([false, false]);
    expect([mfaRequired(s({ forceMfa: true }), false), mfaRequired(s({ forceMfa: true }), true)]).toEqual([true, true]);
    expect([mfaRequired(s({ forceMfaLocalOnly: true }), false), mfaRequired(s({ forceMfaLocalOnly: true }), true)]).toEqual([true, false]);
    expect([mfaRequired(s({ forceMfa: true, forceMfaLocalOnly: true }), false), mfaRequired(s({ forceMfa: true, forceMfaLocalOnly: true }), true)]).toEqual([true, false]);
  });
});
