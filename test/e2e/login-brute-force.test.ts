/**
 * Brute force and account enumeration at the login UI (#12 item 4) against a started node, on
 * LMDB and PostgreSQL, with fetch as the browser: lockout is on by default (10 failed
 * passwords), after which the right password is refused with the same message as a wrong one;
 * an unknown login name goes on to a password page of the same shape as a known user's and
 * fails there with the same message; the instance's opt-in (`ignoreUnknownUsernames: false`)
 * says "not found" at the login name step instead (positive control of the hiding).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itIfMet, meet, POSTGRES, UNCONDITIONAL, type Verdict } from '../requirements.js';
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from '../store/postgres-test-db.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';
import { codeRequest, openLogin, submitLoginName, submitPassword, type LoginSteps, type PageResult } from './login-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
const WRONG = 'Wr0ngPassword';

const stores = [
  { name: 'LMDB', env: undefined as Record<string, string> | undefined, verdict: UNCONDITIONAL as Verdict },
  { name: 'PostgreSQL', env: { TESSERA_DATABASE_URL: TEST_DATABASE_URL ?? '', TESSERA_DATABASE_SCHEMA: freshSchemaName(), TESSERA_MASTERKEY: 'd'.repeat(64) }, verdict: await meet(POSTGRES) },
];

/** The alert of a page, or undefined. */
function alertOf(page: PageResult): string | undefined {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(page.text)?.[1];
}

/** A page with the per-request values (auth request id, CSRF token, login name) blanked out. */
function shapeOf(page: PageResult, steps: LoginSteps, loginName: string): string {
  return page.text.replaceAll(steps.started.authRequest, 'ID').replaceAll(steps.csrf, 'CSRF').replaceAll(loginName, 'NAME');
}

describe.each(stores)('brute force and enumeration ($name)', ({ env, verdict }) => {
  let node: TestNode;
  let tenant: FlowTenant;
  let lockyId: string;

  beforeAll(async () => {
    if (verdict.outcome !== 'run') return;
    node = await startTestNode(env === undefined ? {} : { env });
    tenant = await createFlowTenant(node, REDIRECT_URI);
    await createHuman(node, 'bf-known');
    lockyId = await createHuman(node, 'bf-locky');
  });
  afterAll(async () => {
    if (verdict.outcome !== 'run') return;
    await node.stop();
    node.cleanup();
    if (env !== undefined) await dropSchema(env.TESSERA_DATABASE_SCHEMA ?? '');
  });

  const open = () => openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);

  itIfMet(verdict, `has lockout on and unknown users hidden by default`, async () => {
    const settings = await api(node)('GET', '/settings/v3alpha/users');
    expect(settings.body.settings).toMatchObject({ maxPasswordAttempts: 10, ignoreUnknownUsernames: true });
  });

  itIfMet(verdict, 'shows an unknown login name the same password page and the same failure as a known user', async () => {
    const known = await open();
    const knownPage = await submitLoginName(node, known, 'bf-known');
    const unknown = await open();
    const unknownPage = await submitLoginName(node, unknown, 'bf-nobody');
    expect(unknownPage.status).toBe(200);
    expect(unknownPage.text).toContain('name="password"');
    expect(shapeOf(unknownPage, unknown, 'bf-nobody')).toBe(shapeOf(knownPage, known, 'bf-known'));

    const knownWrong = await submitPassword(node, known, WRONG);
    const unknownWrong = await submitPassword(node, unknown, WRONG);
    expect({ status: unknownWrong.status, alert: alertOf(unknownWrong) }).toEqual({ status: knownWrong.status, alert: alertOf(knownWrong) });
    expect(alertOf(knownWrong)).toBe('The login name or password is wrong, or the account is locked.');
    expect(shapeOf(unknownWrong, unknown, 'bf-nobody')).toBe(shapeOf(knownWrong, known, 'bf-known'));

    // Positive control: the known user's right password still logs in.
    const done = await submitPassword(node, known, PASSWORD);
    expect({ status: done.status, code: new URL(done.location ?? 'x:/').searchParams.get('code') }).toEqual({ status: 303, code: expect.any(String) });
  });

  itIfMet(verdict, 'locks the user after 10 failed passwords; the right password is then refused with the same message', async () => {
    const steps = await open();
    expect((await submitLoginName(node, steps, 'bf-locky')).status).toBe(200);
    const alerts = new Set<string | undefined>();
    for (let i = 0; i < 9; i++) alerts.add(alertOf(await submitPassword(node, steps, WRONG)));
    expect((await api(node)('GET', `/resources/v3alpha/users/${lockyId}`)).body.user.state, 'not locked after 9').toBe('USER_STATE_ACTIVE');
    alerts.add(alertOf(await submitPassword(node, steps, WRONG)));
    expect((await api(node)('GET', `/resources/v3alpha/users/${lockyId}`)).body.user.state).toBe('USER_STATE_LOCKED');

    const right = await submitPassword(node, steps, PASSWORD);
    expect({ status: right.status, location: right.location }).toEqual({ status: 400, location: null });
    alerts.add(alertOf(right));
    const unknown = await open();
    await submitLoginName(node, unknown, 'bf-nobody-else');
    alerts.add(alertOf(await submitPassword(node, unknown, PASSWORD)));
    expect([...alerts], 'wrong password, locked user and unknown user read alike').toEqual(['The login name or password is wrong, or the account is locked.']);

    // Unlocked by an administrator, the right password works again (positive control).
    expect((await api(node)('POST', `/resources/v3alpha/users/${lockyId}/_unlock`)).status).toBe(200);
    const again = await open();
    await submitLoginName(node, again, 'bf-locky');
    expect((await submitPassword(node, again, PASSWORD)).status).toBe(303);
  });

  itIfMet(verdict, 'locks users of an organization at its own threshold; other organizations keep the instance\'s', async () => {
    const call = api(node);
    const orgId: string = (await call('POST', '/resources/v3alpha/organizations', { name: 'Strict Org' })).body.details.id;
    const strictUser = await call('POST', `/resources/v3alpha/users?ctx.orgId=${orgId}`, {
      human: { username: 'bf-strict', profile: { givenName: 'Strict', familyName: 'User' }, email: { address: 'bf-strict@example.com' }, password: PASSWORD },
    });
    expect(strictUser.status).toBe(201);
    const relaxedId = await createHuman(node, 'bf-relaxed');

    expect((await call('PATCH', `/settings/v3alpha/users?ctx.orgId=${orgId}`, { passwordComplexity: { minLength: 4 } })).status, 'instance-only field with an org ctx').toBe(400);
    const set = await call('PATCH', `/settings/v3alpha/users?ctx.orgId=${orgId}`, { maxPasswordAttempts: 3 });
    expect(set.status).toBe(200);
    const orgView = await call('GET', `/settings/v3alpha/users?ctx.orgId=${orgId}`);
    expect(orgView.body.settings.maxPasswordAttempts).toBe(3);
    expect(orgView.body.details.owner).toMatchObject({ id: orgId });
    expect((await call('GET', '/settings/v3alpha/users')).body.settings.maxPasswordAttempts, 'the instance keeps its own').toBe(10);

    const failThrice = async (loginName: string) => {
      const steps = await open();
      expect((await submitLoginName(node, steps, loginName)).status).toBe(200);
      for (let i = 0; i < 3; i++) await submitPassword(node, steps, WRONG);
    };
    const strictDomain: string = (await call('GET', `/resources/v3alpha/organizations/${orgId}`)).body.organization.primaryDomain;
    await failThrice(`bf-strict@${strictDomain}`);
    expect((await call('GET', `/resources/v3alpha/users/${strictUser.body.details.id}`)).body.user.state).toBe('USER_STATE_LOCKED');
    await failThrice('bf-relaxed');
    expect((await call('GET', `/resources/v3alpha/users/${relaxedId}`)).body.user.state, 'the default organization follows the instance (10)').toBe('USER_STATE_ACTIVE');
  });

  itIfMet(verdict, 'says "not found" at the login name step once the instance opts in to show unknown users', async () => {
    expect((await api(node)('PATCH', '/settings/v3alpha/users', { ignoreUnknownUsernames: false })).status).toBe(200);
    try {
      // proto3 JSON leaves a false bool out.
      expect((await api(node)('GET', '/settings/v3alpha/users')).body.settings.ignoreUnknownUsernames ?? false).toBe(false);
      const unknown = await open();
      const refused = await submitLoginName(node, unknown, 'bf-nobody');
      expect({ status: refused.status, alert: alertOf(refused) }).toEqual({ status: 400, alert: 'The user could not be found.' });
      const known = await open();
      expect((await submitLoginName(node, known, 'bf-known')).status, 'a known user goes on').toBe(200);
      expect(alertOf(await submitPassword(node, known, WRONG))).toBe('The password is invalid.');
    } finally {
      expect((await api(node)('PATCH', '/settings/v3alpha/users', { ignoreUnknownUsernames: true })).status).toBe(200);
    }
  });
});
