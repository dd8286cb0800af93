/**
 * Self-registration in the login UI (`register.submit`: it hashes a password and may mail a
 * verification code) counts against the password IP limit: with TESSERA_RATE_LIMIT_PASSWORD_IP
 * at 3 per hour, three submissions are answered with the form again (control: 400, incomplete
 * fields, each counted like a wrong password), the fourth is refused with 429 and Retry-After.
 * The per-account limit is not involved (there is no account yet): it stays at its default.
 * The window is an hour, so no clock moves in it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from './harness.js';
import { codeRequest, getPage, openLogin, postLogin } from './login-flow.fixture.js';
import { createFlowTenant } from './oidc-code-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_RATE_LIMIT_PASSWORD_IP: '3/1h' } });
});
afterAll(async () => {
  await node?.stop();
  node?.cleanup();
});

describe('self-registration', () => {
  it('answers submissions under the password IP limit (control) and refuses past it with 429 and Retry-After', async () => {
    const tenant = await createFlowTenant(node, REDIRECT_URI);
    const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);
    const form = { authRequest: steps.started.authRequest, csrf: steps.csrf };
    const posted = await postLogin(node, { ...form, action: 'register' }, steps.headers);
    expect(posted.status).toBe(303);
    const opened = await getPage(node, posted.location ?? '', steps.started.jar.header());
    expect(opened.text).toContain('register.submit');
    const submit = () => postLogin(node, { ...form, action: 'register.submit', username: 'reg-rate', givenName: 'Reg', familyName: '', email: 'reg@example.com', password: 'x', passwordRepeat: 'x' }, steps.headers);
    for (let i = 0; i < 3; i += 1) {
      const answered = await submit();
      expect(answered.status).toBe(400); // the form again, naming what is missing
      expect(answered.text).toContain('Fill in every field');
    }
    const refused = await submit();
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many attempts');
    const retryAfter = Number(refused.response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3_600);
  });
});
