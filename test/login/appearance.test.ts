/** The login UI's customization: text overrides in the translator and the branding's markup and CSS. */
import { describe, expect, it } from 'vitest';
import { BRANDING_DEFAULTS } from '../../actors/index.js';
import { brandingSources, brandingStyle, displayLoginName, logoHtml, watermarkHtml } from '../../src/login/appearance.js';
import { createTranslator, isMessageKey } from '../../src/i18n/index.js';

describe('translator with text settings', () => {
  it('prefers a set text, falls back to the catalog for unset and empty ones', () => {
    const tr = createTranslator('de', { texts: { next: 'Los', title: '' } });
    expect(tr.t('next')).toBe('Los');
    expect(tr.t('title')).toBe(createTranslator('de').t('title'));
    expect(tr.t('passwordLabel')).toBe('Passwort');
    expect(isMessageKey('next')).toBe(true);
    expect(isMessageKey('toString')).toBe(false);
  });
});

describe('branding rendering', () => {
  const branding = { ...BRANDING_DEFAULTS, primaryColor: '#123456', primaryColorDark: '#abc', logoUrl: 'https://cdn.example.com/a.png?x="y"&z=<1>', fontUrl: 'https://fonts.example.com/f.woff2");}body{display:none' };

  it('sets validated colors as custom properties, dark ones in a media query, and escapes the font URL', () => {
    const css = brandingStyle(branding);
    expect(css).toContain('--primary-color:#123456');
    expect(css).toContain('@media (prefers-color-scheme:dark){:root{--primary-color:#abc}}');
    const fontFace = /@font-face\{font-family:tessera-brand;src:url\("([^"]*)"\)\}/.exec(css);
    expect(fontFace?.[1]).toContain('\\22 ');
    expect(css).not.toContain('body{display:none');
    // A stored value that is not a color never reaches the CSS.
    expect(brandingStyle({ ...BRANDING_DEFAULTS, primaryColor: 'red;}*{x:y' })).toContain(`--primary-color:${BRANDING_DEFAULTS.primaryColor}`);
  });

  it('shows the escaped logo, the watermark unless disabled, and the CSP sources', () => {
    expect(logoHtml(branding)).toBe('<img class="logo" src="https://cdn.example.com/a.png?x=&#34;y&#34;&#38;z=&#60;1&#62;" alt="">');
    expect(logoHtml(undefined)).toBe('');
    expect(watermarkHtml(undefined)).toContain('Powered by Tessera');
    expect(watermarkHtml({ ...BRANDING_DEFAULTS, disableWatermark: true })).toBe('');
    expect(brandingSources(branding)).toEqual({ img: ['https://cdn.example.com'], font: ['https://fonts.example.com'] });
  });

  it('hides the login name suffix only when the branding says so', () => {
    expect(displayLoginName(createTranslator('en'), 'ann@acme.example')).toBe('ann@acme.example');
    const hiding = createTranslator('en', { branding: { ...BRANDING_DEFAULTS, hideLoginNameSuffix: true } });
    expect(displayLoginName(hiding, 'ann@acme.example')).toBe('ann');
    expect(displayLoginName(hiding, 'ann')).toBe('ann');
  });
});
