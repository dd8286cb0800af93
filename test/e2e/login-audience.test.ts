/**
 * The login pages say what the person is signing in to — the application's name and the
 * organization's (the one an org scope names, else the application's) — and the password step
 * offers "Not you?", which goes back to the login name (issue 14, "The login UI, as a person
 * meets it").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, getPage, openLogin, postLogin, submitLoginName } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, type FlowTenant } from './oidc-code-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';

describe('what the login pages name', () => {
  let node: TestNode;
  let tenant: FlowTenant;
  let defaultOrgName: string;

  beforeAll(async () => {
    node = await startTestNode();
    tenant = await createFlowTenant(node, REDIRECT_URI);
    await createHuman(node, 'audience-user');
    const project = await api(node)('GET', `/resources/v3alpha/projects/${tenant.projectId}`);
    const orgId = String(project.body.project.details.resourceOwner.id);
    defaultOrgName = String((await api(node)('GET', `/resources/v3alpha/organizations/${orgId}`)).body.organization.organization.name);
  }, 60_000);
  afterAll(async () => {
    await node.stop();
    node.cleanup();
  });

  it('names the application and its organization on the login name and password pages', async () => {
    const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);
    const first = await getPage(node, steps.started.location, steps.started.jar.header());
    expect(audienceOf(first.text)).toEqual({ app: 'SPA', org: defaultOrgName });
    const password = await submitLoginName(node, steps, 'audience-user');
    expect(password.text).toContain('name="password"');
    expect(audienceOf(password.text)).toEqual({ app: 'SPA', org: defaultOrgName });
  });

  it('names the organization an org scope restricts the login to', async () => {
    const created = await api(node)('POST', '/resources/v3alpha/organizations', { name: 'Acme <Ltd>' });
    expect(created.status).toBe(201);
    const scope = `openid urn:platform:iam:org:id:${String(created.body.details.id)}`;
    const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI, { scope }).url);
    const page = await getPage(node, steps.started.location, steps.started.jar.header());
    expect(page.text, 'escaped like every value').toContain('Acme &#60;Ltd&#62;');
    expect(audienceOf(page.text)).toEqual({ app: 'SPA', org: 'Acme <Ltd>' });
  });

  it('"Not you?" on the password step goes back to the login name; another name continues from there', async () => {
    const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);
    const password = await submitLoginName(node, steps, 'audience-user');
    expect(password.text).toContain('audience-user');
    expect(password.text).toMatch(/name="action" value="other">[\s\S]*?Not you\?/);

    const back = await postLogin(node, { authRequest: steps.started.authRequest, csrf: steps.csrf, action: 'other' }, steps.headers);
    expect(back.status).toBe(303);
    const loginName = await getPage(node, back.location ?? '', steps.started.jar.header());
    expect(loginName.text).toContain('name="loginName"');
    expect(loginName.text).not.toContain('name="password"');

    // Control: the same request goes on with another login name.
    await createHuman(node, 'audience-other');
    const again = await submitLoginName(node, steps, 'audience-other');
    expect(again.text).toContain('name="password"');
    expect(again.text).toContain('audience-other');
  });
});

/** The "Signing in to <app> · <org>" line, unescaped. */
function audienceOf(page: string): { app: string; org: string } | undefined {
  const match = /<p class="audience">[^<]*<strong>([^<]*)<\/strong>(?: · ([^<]*))?<\/p>/.exec(page);
  return match === null ? undefined : { app: decode(match[1] ?? ''), org: decode(match[2] ?? '') };
}

function decode(text: string): string {
  return text.replace(/&#([0-9]+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}
