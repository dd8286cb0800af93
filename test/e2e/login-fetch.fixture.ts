/**
 * A login through the login UI with fetch alone, for suites that need many codes and no
 * rendering: a cookie jar, redirects followed by hand up to the client's redirect URI, and the
 * login forms submitted with every hidden field they carry (request id, CSRF token, whatever
 * else a step adds). What arrives at the redirect URI is returned as the client would read it:
 * the query, the fragment, or the fields of the form_post page.
 */
import type { TestNode } from './harness.js';

export interface Arrival {
  /** How the response reached the client. */
  readonly mode: 'query' | 'fragment' | 'form_post';
  /** The redirect URI the response was addressed to (without its response parameters). */
  readonly target: string;
  readonly params: URLSearchParams;
}

export interface LoginAnswers {
  readonly loginName?: string;
  readonly password?: string;
}

const MAX_STEPS = 12;

/** A cookie-keeping client of one node, standing in for one browser. */
export class FetchBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly node: TestNode) {}

  /**
   * Opens `url` (an authorization request) and answers the login pages until the node sends the
   * browser to another origin (the redirect URI) or serves a form_post page.
   */
  async authorize(url: URL | string, answers: LoginAnswers = {}): Promise<Arrival> {
    let response = await this.request(url.toString());
    for (let step = 0; step < MAX_STEPS; step++) {
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        const next = new URL(location, this.node.baseUrl);
        if (next.origin !== new URL(this.node.baseUrl).origin) return fromRedirect(next);
        response = await this.request(next.toString());
        continue;
      }
      const page = await response.text();
      if (response.status !== 200) throw new Error(`unexpected ${response.status} on the way to the redirect URI: ${page.slice(0, 300)}`);
      const posted = formPostOf(page);
      if (posted !== undefined) return posted;
      response = await this.answer(page, answers);
    }
    throw new Error('the login did not reach the redirect URI');
  }

  private async answer(page: string, answers: LoginAnswers): Promise<Response> {
    const forms = formsOf(page);
    const loginName = forms.find((f) => f.fields.get('action') === 'loginname');
    if (loginName !== undefined) return this.post(loginName, { loginName: required(answers.loginName, 'loginName') });
    const password = forms.find((f) => f.fields.get('action') === 'password');
    if (password !== undefined) return this.post(password, { password: required(answers.password, 'password') });
    // The account picker: log in with another account (the login name page).
    const other = forms.find((f) => f.fields.get('action') === 'other');
    if (other !== undefined) return this.post(other, {});
    throw new Error(`no login form to answer on the page: ${page.slice(0, 300)}`);
  }

  private post(form: HtmlForm, values: Record<string, string>): Promise<Response> {
    const body = new URLSearchParams([...form.fields, ...Object.entries(values)]);
    return this.request(new URL(form.action, this.node.baseUrl).toString(), { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  private async request(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers = { ...(init.headers as Record<string, string> | undefined), ...(cookie === '' ? {} : { cookie }) };
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return response;
  }
}

interface HtmlForm {
  readonly action: string;
  readonly fields: Map<string, string>;
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new Error(`the login asks for ${name}, which the test did not give`);
  return value;
}

function fromRedirect(url: URL): Arrival {
  const target = `${url.origin}${url.pathname}`;
  if (url.hash !== '') return { mode: 'fragment', target, params: new URLSearchParams(url.hash.slice(1)) };
  return { mode: 'query', target, params: url.searchParams };
}

/** The auto-submitting page of response_mode=form_post (a form posting to another origin). */
function formPostOf(page: string): Arrival | undefined {
  const form = formsOf(page).find((f) => /^https?:/.test(f.action));
  return form === undefined ? undefined : { mode: 'form_post', target: form.action, params: new URLSearchParams([...form.fields]) };
}

function formsOf(page: string): HtmlForm[] {
  return [...page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(([, attributes = '', inner = '']) => {
    const fields = new Map<string, string>();
    for (const [input] of inner.matchAll(/<input\b[^>]*>/g)) {
      if (attributeOf(input, 'type') !== 'hidden') continue;
      const name = attributeOf(input, 'name');
      if (name !== undefined) fields.set(name, attributeOf(input, 'value') ?? '');
    }
    return { action: attributeOf(attributes, 'action') ?? '', fields };
  });
}

function attributeOf(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match === null ? undefined : decodeEntities(match[1] ?? '');
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#([0-9]+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
