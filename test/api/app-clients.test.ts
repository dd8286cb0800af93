/**
 * Client helpers for the OIDC endpoints: a replaced secret stops verifying, and a key file's
 * private key signs client assertions that verify with the app's public keys.
 */
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applicationKind, type Application } from '../../actors/organization/application.js';
import { addAppKey } from '../../actors/organization/commands/add-app-key.js';
import { createApp } from '../../actors/organization/commands/create-app.js';
import { removeAppKey } from '../../actors/organization/commands/remove-app-key.js';
import { setAppSecret } from '../../actors/organization/commands/set-app-secret.js';
import { orgKind } from '../../actors/organization/org.js';
import { projectKind } from '../../actors/organization/project.js';
import { appPublicKeys, clientSecretDigest, verifyAppSecret } from '../../src/query/app-clients.js';
import { generateRsaSigningKey } from '../../src/crypto/app-keys.js';
import { randomSecret } from '../../src/crypto/random.js';
import { context, given, NOW, record } from '../actors/decide.fixture.js';
import { applyDecision } from '../actors/fold.fixture.js';

const owner = { type: 'org', id: 'o1' } as const;
const ids = { appId: 'a1', orgId: 'o1', projectId: 'p1' };
const base = [
  { kind: orgKind, record: record('o1', { name: 'Acme', primaryDomain: 'acme.localhost', state: 'active' }, owner) },
  {
    kind: projectKind,
    record: record('p1', { orgId: 'o1', name: 'Portal', state: 'active', roles: [], projectRoleAssertion: false, projectRoleCheck: false, hasProjectCheck: false }, owner),
  },
];

function createdApp(authMethod: 'basic' | 'private_key_jwt', secret: string) {
  const decision = createApp.decide(
    given(base),
    { ...ids, name: 'Api', config: { type: 'api', api: { authMethod } }, secretDigest: clientSecretDigest(secret) },
    context(),
  );
  return applyDecision(applicationKind, 'a1', undefined, decision)!; // created above
}

const withApp = (app: ReturnType<typeof createdApp>) => given([...base, { kind: applicationKind, record: app }]);

describe('verifyAppSecret', () => {
  it('accepts the current secret only; after _generate_secret the old one fails', () => {
    const first = randomSecret();
    const app = createdApp('basic', first);
    expect(app.state.secretDigest).not.toContain(first);
    expect(verifyAppSecret(app.state, first)).toBe(true);
    expect(verifyAppSecret(app.state, `${first}x`)).toBe(false);
    expect(verifyAppSecret(app.state, '')).toBe(false);

    const second = randomSecret();
    const rotated = applyDecision(applicationKind, 'a1', app, setAppSecret.decide(withApp(app), { ...ids, digest: clientSecretDigest(second) }, context()))!;
    expect(verifyAppSecret(rotated.state, second)).toBe(true);
    expect(verifyAppSecret(rotated.state, first)).toBe(false);
  });

  it('never verifies for methods without a secret', () => {
    const app = createdApp('private_key_jwt', 'ignored');
    expect(app.state.secretDigest).toBe('');
    expect(verifyAppSecret({ ...app.state, secretDigest: clientSecretDigest('s') } satisfies Application, 's')).toBe(false);
  });
});

describe('appPublicKeys', () => {
  it('verifies a client assertion signed with the key file private key; removed and expired keys are gone', async () => {
    const app = createdApp('private_key_jwt', '');
    const generated = await generateRsaSigningKey();
    expect(generated.privateKeyPem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const added = applyDecision(
      applicationKind,
      'a1',
      app,
      addAppKey.decide(withApp(app), { ...ids, keyId: 'k1', publicKey: generated.publicJwk, expiresAt: NOW + 60_000 }, context()),
    )!;
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(added.state.clientId)
      .setSubject(added.state.clientId)
      .setAudience('https://issuer.example')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(createPrivateKey(generated.privateKeyPem));

    const keys = appPublicKeys(added.state, NOW);
    expect(keys).toEqual([{ kty: 'RSA', n: generated.publicJwk.n, e: 'AQAB', kid: 'k1', alg: 'RS256', use: 'sig' }]);
    const { payload } = await jwtVerify(assertion, await importJWK(keys[0]!, 'RS256'), { audience: 'https://issuer.example' });
    expect(payload.sub).toBe(added.state.clientId);

    expect(appPublicKeys(added.state, NOW + 60_000)).toEqual([]);
    const removed = applyDecision(applicationKind, 'a1', added, removeAppKey.decide(withApp(added), { ...ids, keyId: 'k1' }, context()))!;
    expect(appPublicKeys(removed.state, NOW)).toEqual([]);
    expect(appPublicKeys({ ...added.state, config: { type: 'api', api: { authMethod: 'basic' } } }, NOW)).toEqual([]);
  });
});
