/**
 * Machine user credentials over JSON/HTTP: personal access tokens (authenticate, deleted → 401,
 * expired → 401), JSON keys (the key file signs a JWT that the stored public key verifies) and
 * client secrets (returned once, removable). Humans get none of them.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';

const BASE = '/resources/v3alpha/users';

let node: TestNode;
let call: ReturnType<typeof api>;
let machineId: string;
let humanId: string;

beforeAll(async () => {
  node = await startTestNode({ testClock: true });
  call = api(node);
  machineId = (await call('POST', BASE, { machine: { username: 'cred-bot', name: 'Cred Bot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' } })).body.details.id;
  humanId = (
    await call('POST', BASE, {
      human: { username: 'cred-human', profile: { givenName: 'C', familyName: 'H' }, email: { address: 'c@example.com' } },
    })
  ).body.details.id;
});
// A test that moved the node's clock puts it back for the next one.
afterEach(() => node.resetClock());
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('personal access tokens', () => {
  it('authenticate API calls until deleted or expired, and are listed without secrets', async () => {
    const added = await call('POST', `${BASE}/${machineId}/tokens`, {});
    expect(added.status).toBe(201);
    const { token, tokenId } = added.body;
    expect(added.body.details.id).toBe(tokenId);
    expect(added.body.expirationDate).toBe('9999-12-31T23:59:59Z');
    const asBot = api(node, token);
    expect((await asBot('POST', `${BASE}/_search`, [])).status).toBe(200);
    expect((await asBot('GET', `${BASE}/${machineId}`)).status).toBe(403); // authenticated, but no role

    const listed = await call('GET', `${BASE}/${machineId}/tokens`);
    expect(listed.body.tokens.map((t: any) => t.id)).toEqual([tokenId]);
    expect(JSON.stringify(listed.body)).not.toContain(token);

    expect((await call('DELETE', `${BASE}/${machineId}/tokens/${tokenId}`)).status).toBe(200);
    const revoked = await asBot('POST', `${BASE}/_search`, []);
    expect(revoked.status).toBe(401);
    expect((await call('DELETE', `${BASE}/${machineId}/tokens/${tokenId}`)).status).toBe(404);

    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    const shortLived = await call('POST', `${BASE}/${machineId}/tokens`, { expirationDate: inAMinute });
    expect(shortLived.status).toBe(201);
    expect((await api(node, shortLived.body.token)('POST', `${BASE}/_search`, [])).status).toBe(200);
    node.advanceClock(61_000); // the node's clock, past the token's expiry
    const expired = await api(node, shortLived.body.token)('POST', `${BASE}/_search`, []);
    expect(expired.status).toBe(401);
    expect(expired.body.details[0].id).toBe('auth.invalid_token');

    const past = await call('POST', `${BASE}/${machineId}/tokens`, { expirationDate: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.details[0].id).toBe('token.expiry_in_past');
    expect((await call('POST', `${BASE}/${humanId}/tokens`, {})).body.details[0].id).toBe('user.not_machine');
  });
});

describe('machine keys', () => {
  it('hand out a key file once whose private key signs what the stored public key verifies', async () => {
    const added = await call('POST', `${BASE}/${machineId}/keys`, { expirationDate: '2099-01-01T00:00:00Z' });
    expect(added.status).toBe(201);
    const keyFile = JSON.parse(added.body.keyFile);
    expect(keyFile).toMatchObject({ type: 'serviceaccount', keyId: added.body.keyId, userId: machineId, expirationDate: '2099-01-01T00:00:00.000Z' });
    expect(keyFile.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);

    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
      .setIssuer(machineId)
      .setSubject(machineId)
      .setAudience(node.baseUrl)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(createPrivateKey(keyFile.key));

    const listed = await call('GET', `${BASE}/${machineId}/keys`);
    expect(listed.body.keys).toHaveLength(1);
    const stored = listed.body.keys[0];
    expect(stored).toMatchObject({ id: keyFile.keyId, expirationDate: '2099-01-01T00:00:00Z' });
    expect(JSON.stringify(listed.body)).not.toContain('PRIVATE');
    const verified = await jwtVerify(assertion, createPublicKey(stored.publicKey), { issuer: machineId, audience: node.baseUrl });
    expect(verified.payload.sub).toBe(machineId);

    expect((await call('DELETE', `${BASE}/${machineId}/keys/${keyFile.keyId}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${machineId}/keys`)).body.keys).toBeUndefined();
    const gone = await call('DELETE', `${BASE}/${machineId}/keys/${keyFile.keyId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.details[0].id).toBe('key.not_found');
    expect((await call('POST', `${BASE}/${humanId}/keys`, {})).body.details[0].id).toBe('user.not_machine');
  });
});

describe('client secrets', () => {
  it('are returned once, shown as set, and removable', async () => {
    const generated = await call('POST', `${BASE}/${machineId}/_generate_secret`);
    expect(generated.status).toBe(200);
    expect(generated.body.clientId).toBe('cred-bot');
    expect(generated.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const got = await call('GET', `${BASE}/${machineId}`);
    expect(got.body.user.machine).toMatchObject({ name: 'Cred Bot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT', hasSecret: true });
    expect(JSON.stringify(got.body)).not.toContain(generated.body.clientSecret);

    expect((await call('POST', `${BASE}/${machineId}/_remove_secret`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${machineId}`)).body.user.machine.hasSecret).toBeUndefined();
    const again = await call('POST', `${BASE}/${machineId}/_remove_secret`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('user.secret_not_found');
    const human = await call('POST', `${BASE}/${humanId}/_generate_secret`);
    expect(human.status).toBe(400);
    expect(human.body.details[0].id).toBe('user.not_machine');
  });

  it('are gone with their user: deleting a machine user revokes its tokens', async () => {
    const id = (await call('POST', BASE, { machine: { username: 'short-lived-bot', name: 'Short' } })).body.details.id;
    const token = (await call('POST', `${BASE}/${id}/tokens`, {})).body.token;
    expect((await api(node, token)('POST', `${BASE}/_search`, [])).status).toBe(200);
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect((await api(node, token)('POST', `${BASE}/_search`, [])).status).toBe(401);
  });

  it('keep the instance owned: the last IAM_OWNER user cannot be deleted', async () => {
    const found = await call('POST', `${BASE}/_search`, [{ username: { username: 'admin', method: 'TEXT_FILTER_METHOD_EQUALS' } }]);
    const adminId = found.body.result[0].details.id;
    const refused = await call('DELETE', `${BASE}/${adminId}`);
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].id).toBe('membership.last_owner');
    expect((await call('GET', `${BASE}/${adminId}`)).status).toBe(200);
  });
});
