/**
 * How the login UI looks and speaks for its context (issue 6): the text and branding settings
 * of the instance, or of the organization an org-scoped auth request names, resolved with the
 * settings framework and rendered by the page layout. The resolved values come from the
 * instance's read state (actors/instance/read-state.ts), kept current by stream version: this
 * node's writes show at once, other workers' and nodes' as soon as their change arrives.
 */
import {
  type ActorSystem,
  BRANDING_DEFAULTS,
  type BrandingSettingsValues,
  isBrandingColor,
  isBrandingUrl,
} from '../../actors/index.js';
import { LOGIN_TEMPLATES } from './views.js';
import { catalogFor, createTranslator, type Customization, MESSAGE_KEYS, type MessageKey, type Translator } from '../i18n/index.js';
import type { LoginContext } from './login-context.js';
import { loginOrgOf } from './login-org.js';

/** Resolves the customization of the login UI for an instance, an optional org and a language. */
export type CustomizationResolver = (instanceId: string, orgId: string | undefined, lang: string) => Promise<Customization>;

export function createCustomizationResolver(actors: ActorSystem): CustomizationResolver {
  return async (instanceId, orgId, lang) => {
    const state = actors.instanceState(instanceId);
    const [branding, texts] = await Promise.all([state.branding(orgId), state.texts(orgId, lang, { keys: MESSAGE_KEYS, values: catalogFor(lang) })]);
    return { branding, texts: texts as Partial<Record<MessageKey, string>> };
  };
}

/**
 * The login context with the translator of its settings: the org of an org-scoped request
 * (when it exists), else the instance.
 */
export async function customizeLoginContext(resolve: CustomizationResolver, ctx: LoginContext): Promise<LoginContext> {
  const loginOrg = await loginOrgOf(ctx.deps.actors, ctx.instanceId, ctx.stored.request.scopes);
  const orgId = loginOrg.restricted ? loginOrg.orgId : undefined;
  const tr = createTranslator(ctx.form.tr.lang, await resolve(ctx.instanceId, orgId, ctx.form.tr.lang));
  return { ...ctx, form: { ...ctx.form, tr } };
}

/** The login name as the page shows it: without `@suffix` when the branding hides it. */
export function displayLoginName(tr: Translator, loginName: string): string {
  if (tr.branding?.hideLoginNameSuffix !== true) return loginName;
  const at = loginName.lastIndexOf('@');
  return at > 0 ? loginName.slice(0, at) : loginName;
}

/** Origins the page loads branding assets from, for the CSP's img-src / font-src. */
export function brandingSources(branding: BrandingSettingsValues | undefined): { img: string[]; font: string[] } {
  const b = branding ?? BRANDING_DEFAULTS;
  return { img: origins([b.logoUrl, b.logoUrlDark]), font: origins([b.fontUrl]) };
}

function origins(urls: readonly string[]): string[] {
  return [...new Set(urls.filter((u) => u !== '' && isBrandingUrl(u)).map((u) => new URL(u).origin))];
}

/** CSS string escape (CSS Syntax §4.3.5 accepts `\hex ` for any code point). */
function cssString(value: string): string {
  return `"${value.replace(/[^A-Za-z0-9 _.,:/?&=+%~#-]/g, (c) => `\\${c.codePointAt(0)?.toString(16) ?? ''} `)}"`;
}

/** A validated color, or the fallback (the stored value is checked again: it lands in CSS). */
function color(value: string, fallback: string): string {
  return isBrandingColor(value) ? value : fallback;
}

const BRAND_FONT = 'tessera-brand';

/** The page's style: the branding as CSS custom properties, then the rules that use them. */
export function brandingStyle(branding: BrandingSettingsValues | undefined): string {
  const b = branding ?? BRANDING_DEFAULTS;
  const d = BRANDING_DEFAULTS;
  const light = {
    primary: color(b.primaryColor, d.primaryColor),
    background: color(b.backgroundColor, d.backgroundColor),
    warn: color(b.warnColor, d.warnColor),
    font: color(b.fontColor, d.fontColor),
  };
  const dark = { primary: b.primaryColorDark, background: b.backgroundColorDark, warn: b.warnColorDark, font: b.fontColorDark };
  const darkVars = Object.entries(dark)
    .filter(([, value]) => isBrandingColor(value))
    .map(([name, value]) => `--${name}-color:${value}`)
    .join(';');
  const hasFont = b.fontUrl !== '' && isBrandingUrl(b.fontUrl);
  return (
    (hasFont ? `@font-face{font-family:${BRAND_FONT};src:url(${cssString(b.fontUrl)})}` : '') +
    `:root{${Object.entries(light).map(([name, value]) => `--${name}-color:${value}`).join(';')}}` +
    (darkVars === '' ? '' : `@media (prefers-color-scheme:dark){:root{${darkVars}}}`) +
    `body{font-family:${hasFont ? `${BRAND_FONT},` : ''}system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;` +
    'background:var(--background-color);color:var(--font-color)}' +
    'label,input,button{display:block;width:100%;margin:.4rem 0}input,button{padding:.5rem;box-sizing:border-box}' +
    'button{background:var(--primary-color);color:#fff;border:1px solid var(--primary-color);border-radius:4px}' +
    'button.secondary{background:transparent;color:var(--primary-color)}' +
    '.links{margin-top:.75rem}' +
    'button.link{display:inline;width:auto;margin:0;padding:0;background:none;border:none;color:var(--primary-color);text-decoration:underline;cursor:pointer}' +
    '.error{color:var(--warn-color)}.audience{margin-top:-.5rem;opacity:.8}.logo{display:block;max-width:12rem;max-height:4rem;margin:0 0 1rem}' +
    '.watermark{margin-top:2rem;font-size:.75rem;opacity:.7;text-align:center}'
  );
}

/** The branding's logo for the layout (its dark variant when set), undefined without one. */
export function logoOf(branding: BrandingSettingsValues | undefined): { readonly url: string; readonly dark?: string } | undefined {
  const b = branding ?? BRANDING_DEFAULTS;
  if (b.logoUrl === '' || !isBrandingUrl(b.logoUrl)) return undefined;
  return b.logoUrlDark === '' || !isBrandingUrl(b.logoUrlDark) ? { url: b.logoUrl } : { url: b.logoUrl, dark: b.logoUrlDark };
}

/** The logo as the layout shows it (templates/_logo.eta), or '' without one. */
export function logoHtml(branding: BrandingSettingsValues | undefined): string {
  return LOGIN_TEMPLATES.render('_logo', { logo: logoOf(branding) });
}

/** "Powered by Tessera" (templates/_watermark.eta), unless the branding disables the watermark. */
export function watermarkHtml(branding: BrandingSettingsValues | undefined): string {
  return LOGIN_TEMPLATES.render('_watermark', { watermark: !(branding ?? BRANDING_DEFAULTS).disableWatermark });
}
