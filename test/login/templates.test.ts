/**
 * The login pages are templates with auto-escaping: a hostile value in every kind of slot
 * (element text, attribute value, link, list item, button text, title, the layout's logo) comes
 * out escaped, beside the same page with a harmless value as control. Also: primary and
 * secondary buttons carry different classes, and the cookie helpers read and write through the
 * cookie package.
 */
import { describe, expect, it } from 'vitest';
import { BRANDING_DEFAULTS } from '../../actors/index.js';
import { createTranslator } from '../../src/i18n/index.js';
import { clearCookie, readCookie, setCookie } from '../../src/http/cookies.js';
import { escapeHtml } from '../../src/html/templates.js';
import {
  renderErrorPage,
  renderLoginNamePage,
  renderLogoutConfirmPage,
  renderMessagePage,
  renderPasswordPage,
  renderPasswordResetPage,
  renderRegisterPage,
  renderSelectAccountPage,
  type FormContext,
} from '../../src/login/pages.js';
import { idpLinks, renderContinuePage, renderExternalPrompt } from '../../src/login/external/pages.js';
import { renderSecondFactorPage } from '../../src/login/second-factor-pages.js';
import { LOGIN_TEMPLATES } from '../../src/login/views.js';
import { toAuthorizationResponse } from '../../src/oidc/shared/authorization-response.js';
import type { HttpReply } from '../../src/http/types.js';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2) a='`;
const ESCAPED = escapeHtml(HOSTILE);

function body(reply: HttpReply): string {
  return String(reply.body);
}

/** The page holds the escaped value and no raw markup of it. */
function expectEscaped(html: string): void {
  expect(html).toContain(ESCAPED);
  expect(html).not.toContain('<script>');
  expect(html).not.toContain('<img src=x');
}

function contextWith(texts: Record<string, string> = {}): FormContext {
  return { authRequestId: 'ar1', csrf: 'csrf1', redirectUri: 'https://app.example/cb', tr: createTranslator('en', { texts }) };
}

describe('login templates escape every slot', () => {
  const ctx = contextWith();

  it('escapes values in attributes (login hint, hidden login name, registration values)', () => {
    expectEscaped(body(renderLoginNamePage(ctx, { loginHint: HOSTILE })));
    expect(body(renderLoginNamePage(ctx, { loginHint: 'ann' }))).toContain('value="ann"');
    expectEscaped(body(renderPasswordPage(ctx, { loginName: HOSTILE })));
    expectEscaped(body(renderRegisterPage(ctx, { values: { username: HOSTILE, email: HOSTILE } })));
    expect(body(renderRegisterPage(ctx, { values: { username: 'ann' } }))).toContain('name="username" autocomplete="username" maxlength="200" required autofocus value="ann"');
  });

  it('escapes element text (login name lines, reset rules, account buttons, error line)', () => {
    expectEscaped(body(renderSecondFactorPage(ctx, { loginName: HOSTILE, method: 'totp', others: [] })));
    expectEscaped(body(renderSecondFactorPage(ctx, { loginName: 'ann', method: 'sms', others: ['email'], sentTo: HOSTILE })));
    expect(body(renderSecondFactorPage(ctx, { loginName: 'ann', method: 'sms', others: ['email'], sentTo: '•••67' }))).toContain('<p class="sent-to">Sent to: •••67</p>');
    expectEscaped(body(renderPasswordResetPage(ctx, { loginName: 'ann', rules: [HOSTILE] })));
    expect(body(renderPasswordResetPage(ctx, { loginName: 'ann', rules: ['at least 8 characters'] }))).toContain('<li>at least 8 characters</li>');
    expectEscaped(body(renderSelectAccountPage(ctx, [{ sessionId: HOSTILE, loginName: HOSTILE }])));
    // Texts come from text settings too (customer-set): the error line and the title escape them.
    const custom = contextWith({ userNotFound: HOSTILE, title: HOSTILE });
    const page = body(renderLoginNamePage(custom, { error: 'userNotFound' }));
    expectEscaped(page);
    expect(page).toContain(`<title>${ESCAPED}</title>`);
    expect(page).toContain(`<p class="error" role="alert">${ESCAPED}</p>`);
    expect(body(renderLoginNamePage(ctx, { error: 'userNotFound' }))).toContain('<p class="error" role="alert">The user could not be found.</p>');
  });

  it('escapes the server pages (error, message, sign-out confirmation)', () => {
    expectEscaped(body(renderErrorPage(createTranslator('en', { texts: { authRequestUnknown: HOSTILE } }), 'authRequestUnknown')));
    expectEscaped(body(renderMessagePage(createTranslator('en', { texts: { loggedOut: HOSTILE } }), 'loggedOutTitle', 'loggedOut')));
    const logout = body(renderLogoutConfirmPage(createTranslator('en'), { action: '/oidc/v1/end_session', csrf: 'c', params: { state: HOSTILE } }));
    expectEscaped(logout);
    expect(logout).toContain('<form method="post" action="/oidc/v1/end_session">');
  });

  it('escapes the external login pages (IdP links, proposed account, creation form, continue link)', () => {
    const links = idpLinks(ctx, [{ id: HOSTILE, name: HOSTILE }]);
    const page = body(renderLoginNamePage(ctx, { idps: links }));
    expectEscaped(page);
    expect(page).toContain(`>Sign in with ${ESCAPED}</a>`);
    const control = body(renderLoginNamePage(ctx, { idps: idpLinks(ctx, [{ id: 'idp1', name: 'Acme' }]) }));
    expect(control).toContain('href="/ui/login/external/start?authRequest=ar1&#38;idp=idp1&#38;csrf=csrf1">Sign in with Acme</a>');
    const creation = { username: HOSTILE, givenName: HOSTILE, familyName: 'x', email: 'x@example.com' };
    expectEscaped(body(renderExternalPrompt(ctx, { proposed: HOSTILE, manualLinking: true, creation })));
    expectEscaped(body(renderContinuePage(ctx, `https://app.example/cb?x=${HOSTILE}`)));
  });

  it('escapes the form_post response page', () => {
    const reply = toAuthorizationResponse({ redirectUri: 'https://app.example/cb', responseMode: 'form_post', state: HOSTILE, issuer: 'https://auth.example' }, { code: 'c1' });
    expectEscaped(body(reply));
    expect(body(reply)).toContain('<input type="hidden" name="code" value="c1">');
  });

  it('writes the branding logo escaped into the layout', () => {
    const branding = { ...BRANDING_DEFAULTS, logoUrl: 'https://cdn.example.com/a.png?x="><script>' };
    const page = body(renderErrorPage(createTranslator('en', { branding }), 'authRequestUnknown'));
    expect(page).toContain('<img class="logo" src="https://cdn.example.com/a.png?x=&#34;&#62;&#60;script&#62;" alt="">');
    expect(page).not.toContain('<script>');
  });
});

describe('login templates', () => {
  it('load every template once and render primary and secondary buttons with different classes', () => {
    expect(LOGIN_TEMPLATES.names).toEqual(expect.arrayContaining(['layout', '_form', '_field', '_error-line', 'login-name', 'password', 'error']));
    const page = body(renderPasswordPage(contextWith(), { loginName: 'ann', canReset: true }));
    expect(page).toContain('<button type="submit" name="submit" value="password" class="primary">Sign in</button>');
    expect(page).toContain('<button type="submit" name="submit" value="reset.request" class="secondary">Forgot password?</button>');
    expect(page).toMatch(/button\.secondary\{[^}]*background:transparent/);
    expect(() => LOGIN_TEMPLATES.render('no-such-page', {})).toThrow(/no template no-such-page/);
  });
});

describe('cookies', () => {
  it('reads one cookie among several and writes HttpOnly, SameSite=Lax cookies with the scope', () => {
    expect(readCookie('a=1; tessera_sessions=t1.t2; b=2', 'tessera_sessions')).toBe('t1.t2');
    expect(readCookie('a=1', 'tessera_sessions')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
    expect(setCookie('tessera_logout', 'v', 600, { path: '/oidc/v1/end_session', secure: true })).toBe('tessera_logout=v; Max-Age=600; Path=/oidc/v1/end_session; HttpOnly; Secure; SameSite=Lax');
    expect(clearCookie('tessera_sessions', { path: '/', secure: false })).toBe('tessera_sessions=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
  });
});
