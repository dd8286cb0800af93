/**
 * The passkey RPCs of the users API (#14) against a started node, without a browser (the
 * ceremonies themselves are in passkeys-browser.test.ts): bad input answers 400 naming the field
 * (control: the same request with that field fixed gets past validation), an answer that is not
 * a valid attestation is refused as `passkey.publicKeyCredential` and uses the challenge up,
 * unknown ids are 404, machine users have no passkeys, and permissions: a user manages their
 * own passkeys without a role but not another user's (control: an admin with user.passkey.write
 * can); the passkey login page answers malformed or forged assertions with its error (400),
 * never a 500. Over gRPC too.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformUsers } from '../../src/gen/platform/resources/user/v3alpha/user_service_pb.js';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { codeRequest, getPage, logInWithFetch, openLogin, postLogin } from './login-flow.fixture.js';
import { createFlowTenant, createHuman, PASSWORD, type FlowTenant } from './oidc-code-flow.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1:9/cb';
const BASE = '/resources/v3alpha/users';

let node: TestNode;
let tenant: FlowTenant;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  node = await startTestNode();
  tenant = await createFlowTenant(node, REDIRECT_URI);
  call = api(node);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

/** A well-shaped RegistrationResponseJSON that is no attestation at all. */
const fakeCredential = () => ({
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: Buffer.from('{"type":"webauthn.create"}').toString('base64url'), attestationObject: 'oA', transports: ['internal'] },
  clientExtensionResults: {},
});

/** The user's own access token for the platform API (code flow with the platform audience scope). */
async function ownToken(loginName: string): Promise<string> {
  const request = codeRequest(node, tenant.clientId, REDIRECT_URI, { scope: 'openid urn:platform:iam:org:project:id:platform:aud' });
  const location = await logInWithFetch(node, request, loginName, PASSWORD);
  const code = new URL(location).searchParams.get('code') ?? '';
  const response = await fetch(`${node.baseUrl}/oauth/v2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: tenant.clientId, code, redirect_uri: REDIRECT_URI, code_verifier: request.verifier }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

describe('Passkey RPCs', () => {
  it('starts a registration with creation options for the instance domain', async () => {
    const id = await createHuman(node, 'pk-api-start');
    const started = await call('POST', `${BASE}/${id}/passkeys`);
    expect(started.status).toBe(200);
    expect(started.body.passkeyId).toMatch(/^\S+$/);
    const options = started.body.publicKeyCredentialCreationOptions;
    expect(options.rp).toEqual({ name: expect.any(String), id: 'localhost' });
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(options.user.id, 'base64url').toString('utf8')).toBe(id);
    expect(options.user.name).toBe('pk-api-start@default.localhost');
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(options.attestation).toBe('none');
  });

  it('answers bad input with 400 naming the field (control: the fixed request passes validation)', async () => {
    const id = await createHuman(node, 'pk-api-bad');
    const started = await call('POST', `${BASE}/${id}/passkeys`);
    const verify = (body: unknown) => call('POST', `${BASE}/${id}/passkeys/${started.body.passkeyId}/_verify`, body);

    const missing = await verify({ name: 'x' });
    expect(missing.status).toBe(400);
    expect(violatedFields(missing.body)).toEqual(['passkey.publicKeyCredential']);
    const wrongType = await verify({ publicKeyCredential: { ...fakeCredential(), type: 'password' } });
    expect(wrongType.status).toBe(400);
    expect(violatedFields(wrongType.body)).toEqual(['passkey.publicKeyCredential.type']);
    const notBase64 = await verify({ publicKeyCredential: { ...fakeCredential(), response: { ...fakeCredential().response, attestationObject: 'not base64url!' } } });
    expect(violatedFields(notBase64.body)).toEqual(['passkey.publicKeyCredential.response.attestationObject']);
    const longName = await verify({ publicKeyCredential: fakeCredential(), name: 'n'.repeat(201) });
    expect(longName.status).toBe(400);
    expect(violatedFields(longName.body)).toEqual(['passkey.name']);

    // Control: well-shaped, so it reaches verification — and is no attestation (400 naming the
    // credential, not a 500); the challenge is used up by that try.
    const forged = await verify({ publicKeyCredential: fakeCredential(), name: 'forged' });
    expect(forged.status).toBe(400);
    expect(forged.body.message).toContain('the passkey could not be verified');
    expect(violatedFields(forged.body)).toEqual(['passkey.publicKeyCredential']);
    const again = await verify({ publicKeyCredential: fakeCredential(), name: 'forged' });
    expect(again.status).toBe(404);
    expect((await call('GET', `${BASE}/${id}/passkeys`)).body.passkeys ?? []).toEqual([]);
  });

  it('refuses unknown ids and machine users (control: a human has an empty list)', async () => {
    const id = await createHuman(node, 'pk-api-unknown');
    expect((await call('GET', `${BASE}/${id}/passkeys`)).status).toBe(200);
    const unknownRegistration = await call('POST', `${BASE}/${id}/passkeys/nope/_verify`, { publicKeyCredential: fakeCredential() });
    expect(unknownRegistration.status).toBe(404);
    const unknownPasskey = await call('DELETE', `${BASE}/${id}/passkeys/nope`);
    expect(unknownPasskey.status).toBe(404);
    expect(unknownPasskey.body.message).toContain('user.passkey.not_found');
    const machine = await call('POST', BASE, { machine: { username: 'pk-api-bot', name: 'Bot' } });
    expect(machine.status).toBe(201);
    const refused = await call('POST', `${BASE}/${machine.body.details.id}/passkeys`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('only human users have passkeys');
  });

  it("lets a user manage their own passkeys without a role, not another user's (control: the admin can)", async () => {
    const id = await createHuman(node, 'pk-api-self');
    const other = await createHuman(node, 'pk-api-other');
    const asSelf = api(node, await ownToken('pk-api-self'));
    expect((await asSelf('POST', `${BASE}/${id}/passkeys`)).status).toBe(200);
    expect((await asSelf('GET', `${BASE}/${id}/passkeys`)).status).toBe(200);
    expect((await asSelf('POST', `${BASE}/${other}/passkeys`)).status).toBe(403);
    expect((await asSelf('GET', `${BASE}/${other}/passkeys`)).status).toBe(403);
    expect((await asSelf('DELETE', `${BASE}/${other}/passkeys/any`)).status).toBe(403);
    expect((await call('POST', `${BASE}/${other}/passkeys`)).status).toBe(200);
  });

  it('the passkey login page refuses a malformed or missing answer with its error, never a 500 (control: the page before)', async () => {
    const steps = await openLogin(node, codeRequest(node, tenant.clientId, REDIRECT_URI).url);
    const form = { authRequest: steps.started.authRequest, csrf: steps.csrf };
    const opened = await postLogin(node, { ...form, action: 'passkey.start' }, steps.headers);
    expect(opened.status).toBe(303);
    const page = await getPage(node, opened.location ?? '', steps.started.jar.header());
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-passkey-options=');
    expect(page.text).not.toContain('role="alert"');
    expect(page.response.headers.get('content-security-policy')).toContain("script-src 'self'");
    for (const credential of ['failed', '{"id":"x"}', `{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"},"clientExtensionResults":{}}`, 'x'.repeat(20_000), '']) {
      const refused = await postLogin(node, { ...form, action: 'passkey', credential }, steps.headers);
      expect(refused.status, credential.slice(0, 40)).toBe(400);
      expect(refused.text).toContain('The passkey could not be used.');
      expect(refused.text).toContain('data-passkey-options=');
    }
  });

  it('works over gRPC too', async () => {
    const id = await createHuman(node, 'pk-api-grpc');
    const client = createClient(PlatformUsers, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const headers = { headers: { authorization: `Bearer ${node.adminToken}` } };
    const started = await client.startPasskeyRegistration({ id }, headers);
    expect(started.passkeyId).not.toBe('');
    expect((started.publicKeyCredentialCreationOptions as { rp: { id: string } }).rp.id).toBe('localhost');
    expect((await client.listPasskeys({ id }, headers)).passkeys).toEqual([]);
  });
});
