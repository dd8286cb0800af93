/** Text and branding settings: resolution per key / property, the set commands' rules and events. */
import { describe, expect, it } from 'vitest';
import {
  brandingSettingsKind,
  instanceOwner,
  isBrandingColor,
  isBrandingUrl,
  orgKind,
  orgOwner,
  resolveBrandingSettings,
  resolveTextSettings,
  setBrandingSettings,
  setTextSettings,
  systemOwner,
  textSettingsId,
  textSettingsKind,
} from '../../actors/index.js';
import { context, given, noOutcome, record } from './decide.fixture.js';

describe('text settings', () => {
  it('resolves each key org → instance → system catalog, naming inherited owners', () => {
    const resolved = resolveTextSettings(['a', 'b', 'c', 'd'], { a: 'sys-a', b: 'sys-b', c: 'sys-c' }, { instanceId: 'i1', values: { a: 'inst-a', b: 'inst-b' } }, { orgId: 'o1', values: { a: 'org-a' } });
    expect(resolved).toEqual({
      a: { value: 'org-a' },
      b: { value: 'inst-b', owner: instanceOwner('i1') },
      c: { value: 'sys-c', owner: systemOwner },
      d: { value: '', owner: systemOwner },
    });
  });

  it('records the language with the patch in the context row; no change → no event', () => {
    const loaded = given([{ kind: orgKind, record: record('o1', {}, orgOwner('o1')) }]);
    const patch = { set: { next: 'Go' }, reset: [] };
    const decision = setTextSettings.decide(loaded, { orgId: 'o1', language: 'de', patch }, context());
    expect(decision.events).toEqual([
      { aggregateType: 'text_settings', aggregateId: textSettingsId('o1', 'de'), type: 'org.settings.text.set', owner: orgOwner('o1'), creator: 'u-admin', payload: { language: 'de', set: { next: 'Go' }, reset: [] } },
    ]);
    expect(textSettingsKind.evolve(undefined, decision.events[0] as never)).toEqual({ next: 'Go' });
    const unchanged = given([{ kind: textSettingsKind, record: record(textSettingsId('i1', 'de'), { next: 'Go' }, instanceOwner('i1')) }]);
    expect(setTextSettings.decide(unchanged, { language: 'de', patch }, context()).events).toEqual([]);
  });

  it('refuses an unsupported language and a missing org', () => {
    expect(() => setTextSettings.decide(given([]), { language: 'xx', patch: { set: {}, reset: [] } }, context())).toThrow(/language/);
    expect(() => setTextSettings.decide(given([]), { orgId: 'gone', language: 'en', patch: { set: {}, reset: [] } }, context())).toThrow(/organization not found/);
  });
});

describe('branding settings', () => {
  it('resolves every property with system defaults', () => {
    const resolved = resolveBrandingSettings('i1', { primaryColor: '#f00', disableWatermark: true }, { orgId: 'o1', values: { primaryColor: '#0f0' } });
    expect(resolved.primaryColor).toEqual({ value: '#0f0' });
    expect(resolved.disableWatermark).toEqual({ value: true, owner: instanceOwner('i1') });
    expect(resolved.logoUrl).toEqual({ value: '', owner: systemOwner });
    expect(resolved.hideLoginNameSuffix).toEqual({ value: false, owner: systemOwner });
  });

  it('accepts only #rgb / #rrggbb colors and https URLs (http on localhost)', () => {
    for (const ok of ['#abc', '#A1B2C3']) expect(isBrandingColor(ok), ok).toBe(true);
    for (const bad of ['abc', '#abcd', '#ggg', '#fff;', 'red', '']) expect(isBrandingColor(bad), bad).toBe(false);
    for (const ok of ['https://cdn.example.com/l.png', 'http://localhost:8080/l.png', 'http://127.0.0.1/x']) expect(isBrandingUrl(ok), ok).toBe(true);
    for (const bad of ['http://example.com/l.png', 'javascript:alert(1)', 'data:image/png;base64,AA', '/relative.png', 'https://user:pw@example.com/']) {
      expect(isBrandingUrl(bad), bad).toBe(false);
    }
  });

  it('refuses invalid values naming each field, and allows clearing a dark variant', () => {
    const patch = { set: { primaryColor: 'red', logoUrl: 'http://example.com/x.png', backgroundColor: '' }, reset: [] };
    let error: any;
    try {
      setBrandingSettings.decide(given([]), { patch }, context());
    } catch (e) {
      error = e;
    }
    expect(error?.code).toBe('branding.invalid');
    expect(error.violations.map((v: any) => v.field)).toEqual(['settings.primaryColor.set', 'settings.backgroundColor.set', 'settings.logoUrl.set']);
    const cleared = setBrandingSettings.decide(given([]), { patch: { set: { primaryColorDark: '' }, reset: [] } }, context());
    expect(cleared.events[0]).toMatchObject({ aggregateId: 'i1', type: 'instance.settings.branding.set', owner: instanceOwner('i1') });
    expect(cleared.reply(noOutcome)).toMatchObject({ id: 'i1', sequence: 0 });
    expect(brandingSettingsKind.evolve({ primaryColor: '#000' }, { type: 'instance.settings.branding.set', payload: { set: {}, reset: ['primaryColor'] } } as never)).toEqual({});
  });
});
