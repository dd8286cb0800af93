/** Signer: tokens verify with jose against the published JWKS; our own verifier refuses tampering, unknown keys and bad claims; the ring cache. */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError, createManualClock, InstanceReadState, type InstanceStates, type SigningAlgorithm, webKeysKind } from '../../actors/index.js';
import { privateKeyFromPkcs8, type StoredWebKey, type WebKeySnapshot } from '../../src/crypto/key-ring.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { createSigner, type WebKeySource } from '../../src/crypto/signer.js';
import { generateWebKey } from '../../src/crypto/web-key-generator.js';

const sealer = createSecretSealer(randomBytes(32));

async function storedKey(algorithm: SigningAlgorithm, state: StoredWebKey['state']): Promise<StoredWebKey> {
  const key = await generateWebKey(algorithm);
  return { kid: key.kid, algorithm, state, publicJwk: key.publicJwk, sealedPrivateKey: sealer.seal(key.privateKeyPem) };
}

/** A source serving mutable snapshots and counting reads. */
function fakeSource(initial: Record<string, WebKeySnapshot>) {
  const snapshots = new Map(Object.entries(initial));
  const source: WebKeySource & { reads: number; set(id: string, s: WebKeySnapshot): void } = {
    reads: 0,
    async snapshot(instanceId) {
      source.reads += 1;
      return snapshots.get(instanceId);
    },
    set: (id, s) => snapshots.set(id, s),
  };
  return source;
}

/** Instance states as the actor system keeps them (one per instance), without a store: the signer's loads go to its source. */
function testStates(): InstanceStates {
  const states = new Map<string, InstanceReadState>();
  const noRows = async () => undefined;
  return {
    instanceState(instanceId) {
      let state = states.get(instanceId);
      if (state === undefined) states.set(instanceId, (state = new InstanceReadState(instanceId, noRows, 0)));
      return state;
    },
  };
}

/** The ring's stream at `version`, as the change feed (or this node's own append) reports it. */
const ringMoved = (instanceId: string, version: number) => [{ aggregateType: webKeysKind.type, aggregateId: instanceId, version }];

function codeOf(error: unknown): string {
  return error instanceof AppError ? error.code : 'not-an-app-error';
}

const rings: Record<SigningAlgorithm, StoredWebKey[]> = { RS256: [], ES256: [], EdDSA: [] };

beforeAll(async () => {
  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) rings[alg] = [await storedKey(alg, 'active'), await storedKey(alg, 'next')];
});

describe('signJwt', () => {
  it.each(['RS256', 'ES256', 'EdDSA'] as const)('%s: verifies with jose against the published JWKS; header carries alg, kid, typ', async (alg) => {
    const source = fakeSource({ i1: { version: 1, keys: rings[alg] } });
    const signer = createSigner({ states: testStates(), source, sealer, clock: createManualClock(0) });
    const token = await signer.signJwt('i1', { sub: 'u1', iss: 'http://issuer', aud: 'c1', exp: 4_000_000_000 }, { typ: 'at+jwt' });

    const jwks = JSON.parse((await signer.publishedKeys('i1')).body) as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: 'http://issuer', audience: 'c1', algorithms: [alg] });
    expect(payload.sub).toBe('u1');
    expect(protectedHeader).toEqual({ alg, kid: rings[alg][0]!.kid, typ: 'at+jwt' });
    expect(decodeProtectedHeader(await signer.signJwt('i1', {}))).toMatchObject({ typ: 'JWT' });
  });

  it('ES256 signatures are IEEE P1363 (64 bytes), as JWS requires', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.ES256 } }), sealer, clock: createManualClock(0) });
    const token = await signer.signJwt('i1', { a: 1 });
    expect(Buffer.from(token.split('.')[2]!, 'base64url')).toHaveLength(64);
  });

  it('RS256 signs on the threadpool: the event loop turns while the signature is computed', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.RS256 } }), sealer, clock: createManualClock(0) });
    await signer.publishedKeys('i1'); // load the ring first
    let turned = false;
    setImmediate(() => (turned = true));
    const pending = signer.signJwt('i1', { a: 1 });
    expect(turned).toBe(false);
    await pending;
    expect(turned).toBe(true);
  });

  it('refuses an instance without keys (web_key.not_initialized)', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({}), sealer, clock: createManualClock(0) });
    await expect(signer.signJwt('nope', {}).catch(codeOf)).resolves.toBe('web_key.not_initialized');
  });
});

describe('signJwtNow', () => {
  const verify = async (signer: ReturnType<typeof createSigner>, token: string, alg: SigningAlgorithm) => {
    const jwks = JSON.parse((await signer.publishedKeys('i1')).body) as JSONWebKeySet;
    return jwtVerify(token, createLocalJWKSet(jwks), { algorithms: [alg] });
  };

  it.each(['ES256', 'EdDSA'] as const)('%s with the ring held: the token itself, no promise; a promise while the ring loads', async (alg) => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings[alg] } }), sealer, clock: createManualClock(0) });
    const cold = signer.signJwtNow('i1', { sub: 'cold' }, 'JWT');
    expect(cold).toBeInstanceOf(Promise); // control: the ring is not held yet
    expect((await verify(signer, await cold, alg)).payload.sub).toBe('cold');
    const token = signer.signJwtNow('i1', { sub: 'u1', name: 'Zoë 東京 🚀' }, 'at+jwt');
    expect(typeof token).toBe('string');
    const { payload, protectedHeader } = await verify(signer, token as string, alg);
    expect(payload).toEqual({ sub: 'u1', name: 'Zoë 東京 🚀' });
    expect(protectedHeader).toEqual({ alg, kid: rings[alg][0]!.kid, typ: 'at+jwt' });
  });

  it('signs payloads one after another and one larger than the shared input buffer, each its own', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.ES256 } }), sealer, clock: createManualClock(0) });
    await signer.publishedKeys('i1');
    const long = 'x'.repeat(20_000);
    const tokens = [signer.signJwtNow('i1', { n: long }, 'JWT'), signer.signJwtNow('i1', { n: 'short' }, 'JWT'), signer.signJwtNow('i1', { n: 'é'.repeat(3000) }, 'JWT')] as string[];
    const payloads = await Promise.all(tokens.map(async (token) => (await verify(signer, token, 'ES256')).payload.n));
    expect(payloads).toEqual([long, 'short', 'é'.repeat(3000)]);
  });

  it('RS256 returns a promise even with the ring held (the threadpool signs)', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.RS256 } }), sealer, clock: createManualClock(0) });
    await signer.publishedKeys('i1');
    const pending = signer.signJwtNow('i1', { sub: 'u1' }, 'JWT');
    expect(pending).toBeInstanceOf(Promise);
    expect((await verify(signer, await pending, 'RS256')).payload.sub).toBe('u1');
  });
});

describe('verifyJwt', () => {
  it('accepts our token and rejects a tampered one, an unknown kid, a missing kid', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.ES256 }, i2: { version: 1, keys: rings.EdDSA } }), sealer, clock: createManualClock(0) });
    const token = await signer.signJwt('i1', { sub: 'u1' });
    await expect(signer.verifyJwt('i1', token)).resolves.toMatchObject({ payload: { sub: 'u1' } });

    const [header, , signature] = token.split('.');
    const tampered = `${header}.${Buffer.from('{"sub":"admin"}').toString('base64url')}.${signature}`;
    const foreign = await signer.signJwt('i2', { sub: 'u1' }); // another instance's key: unknown kid here
    const noKid = `${Buffer.from('{"alg":"ES256","typ":"JWT"}').toString('base64url')}.${token.split('.')[1]}.${signature}`;
    for (const bad of [tampered, foreign, noKid, 'not.a.jwt']) {
      await expect(signer.verifyJwt('i1', bad).catch(codeOf)).resolves.toBe('token.invalid');
    }
  });

  it('rejects a header alg that differs from the key (no algorithm confusion)', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.ES256 } }), sealer, clock: createManualClock(0) });
    const token = await signer.signJwt('i1', { sub: 'u1' });
    const [, payload, signature] = token.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: rings.ES256[0]!.kid, typ: 'JWT' })).toString('base64url');
    await expect(signer.verifyJwt('i1', `${header}.${payload}.${signature}`).catch(codeOf)).resolves.toBe('token.invalid');
  });

  it.each(['RS256', 'ES256', 'EdDSA'] as const)('%s: verifies its own signature and refuses a flipped signature byte', async (alg) => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings[alg] } }), sealer, clock: createManualClock(0) });
    const token = await signer.signJwt('i1', { sub: 'u1' });
    await expect(signer.verifyJwt('i1', token)).resolves.toMatchObject({ payload: { sub: 'u1' }, protectedHeader: { alg } });
    const signature = Buffer.from(token.split('.')[2]!, 'base64url');
    signature[5] = signature[5]! ^ 0x01;
    const flipped = `${token.split('.').slice(0, 2).join('.')}.${signature.toString('base64url')}`;
    await expect(signer.verifyJwt('i1', flipped).catch(codeOf)).resolves.toBe('token.invalid');
  });

  it('checks exp and nbf against the signer clock (or `now`), with leeway', async () => {
    const clock = createManualClock(10_000_000); // 10,000 s
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.ES256 } }), sealer, clock });
    const expired = await signer.signJwt('i1', { sub: 'u1', exp: 10_000 });
    await expect(signer.verifyJwt('i1', expired).catch(codeOf)).resolves.toBe('token.invalid');
    await expect(signer.verifyJwt('i1', expired, { now: 9_999_000 })).resolves.toMatchObject({ payload: { sub: 'u1' } });
    await expect(signer.verifyJwt('i1', expired, { clockToleranceSec: 60 })).resolves.toMatchObject({ payload: { sub: 'u1' } });
    const early = await signer.signJwt('i1', { sub: 'u1', nbf: 10_100 });
    await expect(signer.verifyJwt('i1', early).catch(codeOf)).resolves.toBe('token.invalid');
    await expect(signer.verifyJwt('i1', early, { clockToleranceSec: 100 })).resolves.toMatchObject({ payload: { sub: 'u1' } });
    const textExp = await signer.signJwt('i1', { sub: 'u1', exp: '99999999999' });
    await expect(signer.verifyJwt('i1', textExp).catch(codeOf)).resolves.toBe('token.invalid');
  });

  it('checks the issuer and required claims when asked', async () => {
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: rings.ES256 } }), sealer, clock: createManualClock(0) });
    const token = await signer.signJwt('i1', { sub: 'u1', iss: 'https://a.example' });
    await expect(signer.verifyJwt('i1', token, { issuer: 'https://a.example', requiredClaims: ['sub'] })).resolves.toMatchObject({ payload: { iss: 'https://a.example' } });
    await expect(signer.verifyJwt('i1', token, { issuer: 'https://b.example' }).catch(codeOf)).resolves.toBe('token.invalid');
    await expect(signer.verifyJwt('i1', token, { requiredClaims: ['jti'] }).catch(codeOf)).resolves.toBe('token.invalid');
  });

  it('refuses critical header parameters and payloads that are not JSON objects', async () => {
    const key = rings.ES256[0]!;
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: [key] } }), sealer, clock: createManualClock(0) });
    const privateKey = createPrivateKey(sealer.open(key.sealedPrivateKey));
    const signWith = (header: object, payloadJson: string) => {
      const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(payloadJson).toString('base64url')}`;
      return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    };
    const ok = signWith({ alg: 'ES256', kid: key.kid }, '{"sub":"u1"}');
    await expect(signer.verifyJwt('i1', ok)).resolves.toMatchObject({ payload: { sub: 'u1' } });
    for (const bad of [signWith({ alg: 'ES256', kid: key.kid, crit: ['exp'], exp: 1 }, '{"sub":"u1"}'), signWith({ alg: 'ES256', kid: key.kid }, '[1,2]'), signWith({ alg: 'ES256', kid: key.kid }, 'null')]) {
      await expect(signer.verifyJwt('i1', bad).catch(codeOf)).resolves.toBe('token.invalid');
    }
  });

  it('keeps verifying tokens of a retired key while it is published', async () => {
    const [active, next] = rings.ES256 as [StoredWebKey, StoredWebKey];
    const source = fakeSource({ i1: { version: 1, keys: [active, next] } });
    const clock = createManualClock(0);
    const states = testStates();
    const signer = createSigner({ states, source, sealer, clock });
    const before = await signer.signJwt('i1', { sub: 'u1' });
    source.set('i1', { version: 2, keys: [{ ...active, state: 'retired' }, { ...next, state: 'active' }] });
    states.instanceState('i1').applyChange(ringMoved('i1', 2));
    const after = await signer.signJwt('i1', { sub: 'u1' });
    expect(decodeProtectedHeader(after).kid).toBe(next.kid);
    await expect(signer.verifyJwt('i1', before)).resolves.toMatchObject({ protectedHeader: { kid: active.kid } });
  });
});

describe('ring cache', () => {
  it("is held by the instance's state: read once, kept while the ring's stream does not move past it, dropped when it does", async () => {
    const source = fakeSource({ i1: { version: 1, keys: rings.ES256 }, i2: { version: 4, keys: rings.ES256 } });
    const clock = createManualClock(0);
    const states = testStates();
    const signer = createSigner({ states, source, sealer, clock });
    const first = await signer.publishedKeys('i1');
    await Promise.all([signer.signJwt('i1', {}), signer.signJwt('i1', {}), signer.publishedKeys('i1')]);
    expect(source.reads).toBe(1);
    expect(states.instanceState('i1').holds('signing keys')).toBe(true);

    clock.advance(3_600_000); // no expiry: time alone reads nothing
    source.set('i1', { version: 2, keys: rings.EdDSA });
    expect(await signer.publishedKeys('i1')).toBe(first);
    states.instanceState('i1').applyChange(ringMoved('i1', 1)); // a version it already has: kept
    states.instanceState('i1').applyChange(ringMoved('i2', 2)); // another stream of the type: kept
    states.instanceState('i1').applyChange([{ aggregateType: 'org', aggregateId: 'i1', version: 9 }]); // another type: kept
    expect(await signer.publishedKeys('i1')).toBe(first);
    expect(source.reads).toBe(1);

    states.instanceState('i1').applyChange(ringMoved('i1', 2));
    const second = await signer.publishedKeys('i1');
    expect(second).not.toBe(first);
    expect(second.etag).not.toBe(first.etag);
    expect(JSON.parse(second.body).keys.map((k: { kid: string }) => k.kid)).toEqual(rings.EdDSA.map((k) => k.kid));
    expect(source.reads).toBe(2);
  });

  it('does not keep a ring whose read a change overtook: its callers get it, the next use reads again', async () => {
    const source = fakeSource({ i1: { version: 1, keys: rings.ES256 } });
    const states = testStates();
    const signer = createSigner({ states, source, sealer, clock: createManualClock(0) });
    const pending = signer.publishedKeys('i1');
    source.set('i1', { version: 2, keys: rings.EdDSA });
    states.instanceState('i1').applyChange(ringMoved('i1', 2)); // arrives while version 1 is being read
    expect(JSON.parse((await pending).body).keys[0].kid).toBe(rings.ES256[0]!.kid);
    expect(JSON.parse((await signer.publishedKeys('i1')).body).keys[0].kid).toBe(rings.EdDSA[0]!.kid);
    expect(source.reads).toBe(2);
  });

  it('publishes active first, then next, then retired, with kid, alg and use', async () => {
    const [active, next] = rings.RS256 as [StoredWebKey, StoredWebKey];
    const retired = { ...rings.ES256[0]!, state: 'retired' as const };
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: [retired, next, active] } }), sealer, clock: createManualClock(0) });
    const { keys } = JSON.parse((await signer.publishedKeys('i1')).body) as { keys: Record<string, string>[] };
    expect(keys.map((k) => [k.kid, k.alg, k.use, k.kty])).toEqual([
      [active.kid, 'RS256', 'sig', 'RSA'],
      [next.kid, 'RS256', 'sig', 'RSA'],
      [retired.kid, 'ES256', 'sig', 'EC'],
    ]);
    expect(keys.every((k) => k.d === undefined)).toBe(true);
  });
});

describe('privateKeyFromPkcs8 (the active key of a cold ring)', () => {
  it.each(['RS256', 'ES256', 'EdDSA'] as const)('%s: the same private key as createPrivateKey(pem), signing what the published key verifies', async (alg) => {
    const key = await generateWebKey(alg);
    const imported = privateKeyFromPkcs8(key.privateKeyPem, key.publicJwk);
    expect(imported.export({ format: 'jwk' })).toEqual(createPrivateKey(key.privateKeyPem).export({ format: 'jwk' }));
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: [{ kid: key.kid, algorithm: alg, state: 'active', publicJwk: key.publicJwk, sealedPrivateKey: sealer.seal(key.privateKeyPem) }] } }), sealer, clock: createManualClock(0) });
    const token = await signer.signJwt('i1', { sub: 'u1' });
    const jwks = JSON.parse((await signer.publishedKeys('i1')).body) as JSONWebKeySet;
    await expect(jwtVerify(token, createLocalJWKSet(jwks), { algorithms: [alg] })).resolves.toMatchObject({ payload: { sub: 'u1' } });
  });

  it('a PKCS#8 it does not read itself (another curve) still imports through createPrivateKey', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const p384Pem = p384.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const p384Jwk = p384.publicKey.export({ format: 'jwk' });
    expect(privateKeyFromPkcs8(p384Pem, { kty: 'EC', crv: 'P-384', x: p384Jwk.x!, y: p384Jwk.y! }).export({ format: 'jwk' })).toEqual(p384.privateKey.export({ format: 'jwk' }));
    // Control: a P-256 PEM imports to the same key with or without a trailing newline and CRLF line ends.
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = p256.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const publicJwk = p256.publicKey.export({ format: 'jwk' });
    const expected = p256.privateKey.export({ format: 'jwk' });
    for (const variant of [pem, pem.trimEnd(), pem.replace(/\n/g, '\r\n')]) {
      expect(privateKeyFromPkcs8(variant, { kty: 'EC', crv: 'P-256', x: publicJwk.x!, y: publicJwk.y! }).export({ format: 'jwk' })).toEqual(expected);
    }
  });

  it('a damaged PEM is refused as before (createPrivateKey throws), not imported as some other key', async () => {
    const key = await generateWebKey('ES256');
    const lines = key.privateKeyPem.split('\n');
    const truncated = [lines[0], lines[1]!.slice(0, 20), lines.at(-2), ''].join('\n');
    expect(() => privateKeyFromPkcs8(truncated, key.publicJwk)).toThrow();
    expect(() => privateKeyFromPkcs8(key.privateKeyPem, key.publicJwk)).not.toThrow(); // control
  });
});

describe('ring import does only what signing needs', () => {
  it('verifies a token of the next and a retired key, whose public keys are imported on first use', async () => {
    const [active, next] = rings.ES256 as [StoredWebKey, StoredWebKey];
    const retired = { ...rings.EdDSA[0]!, state: 'retired' as const };
    const signWith = (stored: StoredWebKey) => {
      const input = `${Buffer.from(JSON.stringify({ alg: stored.algorithm, kid: stored.kid, typ: 'JWT' })).toString('base64url')}.${Buffer.from('{"sub":"u1"}').toString('base64url')}`;
      const privateKey = createPrivateKey(sealer.open(stored.sealedPrivateKey));
      const signature = stored.algorithm === 'ES256' ? sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }) : sign(null, Buffer.from(input), privateKey);
      return `${input}.${signature.toString('base64url')}`;
    };
    const signer = createSigner({ states: testStates(), source: fakeSource({ i1: { version: 1, keys: [active, next, retired] } }), sealer, clock: createManualClock(0) });
    await signer.signJwt('i1', {}); // the ring is imported by a signature, as on the token path
    for (const stored of [active, next, retired]) await expect(signer.verifyJwt('i1', signWith(stored))).resolves.toMatchObject({ protectedHeader: { kid: stored.kid } });
    const unknown = { ...rings.ES256[1]!, kid: 'not-in-the-ring' };
    await expect(signer.verifyJwt('i1', signWith(unknown)).catch(codeOf)).resolves.toBe('token.invalid');
  });
});
