/**
 * The MFA enrolment chooser of the login UI (`mfa.enrol.choose`, a button naming another second
 * factor to set up; choosing OTP by email / SMS sends a code) counts against the password limits
 * like its neighbour steps (`mfa.enrol`, `otp.method`): with TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME
 * at 4 per hour, the password (1) and three choices (2..4) are answered (control), the fifth
 * request is refused with 429 and Retry-After. The window is an hour, so no clock moves in it.
 */
import { afterAll, beforeAll, expect, it, describe } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { codeRequest, openLogin, postLogin, submitLoginName, submitPassword } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD } from './oidc-code-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME: '4/1h' } });
  const policy = await api(node)('PATCH', '/settings/v3alpha/login', { forceMfa: true });
  expect(policy.status, JSON.stringify(policy.body)).toBe(200);
});
afterAll(async () => {
  await node?.stop();
  node?.cleanup();
});

describe('the MFA enrolment chooser', () => {
  it('answers choices under the password limit (control) and refuses past it with 429 and Retry-After', async () => {
    await createHuman(node, 'enrol-rate-ada');
    const tenant = await createFlowTenant(node, REDIRECT_URI);
    const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);
    await submitLoginName(node, steps, 'enrol-rate-ada');
    const choose = () => postLogin(node, { authRequest: steps.started.authRequest, csrf: steps.csrf, action: 'mfa.enrol.choose', factor: 'totp' }, steps.headers);
    expect((await submitPassword(node, steps, PASSWORD)).status).toBe(303); // 1: the password, then the enrolment page
    for (let i = 0; i < 3; i += 1) {
      const chosen = await choose(); // 2..4
      expect(chosen.status).toBe(200);
      expect(chosen.text).toContain('name="code"'); // the TOTP set-up page with its code field
    }
    const refused = await choose(); // 5
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many attempts');
    const retryAfter = Number(refused.response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3_600);
  });
});
