/**
 * Native TLS and trusted proxies (docs/operations/tls.md) against started nodes, for both HTTP
 * adapters: HTTPS with a self-signed certificate made here, discovery naming an https issuer,
 * a client_credentials token from openid-client over TLS, gRPC over TLS with @grpc/grpc-js;
 * forwarding headers ignored from an untrusted peer (127.0.0.1) and honoured from the trusted
 * proxy address (127.0.0.2) for the issuer, the tenant and the client address.
 */
import { rmSync } from 'node:fs';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { createRemoteJWKSet, customFetch as joseFetch, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetOrganizationRequestSchema, GetOrganizationResponseSchema, PlatformOrganizations } from '../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { runCli, startTestNode, type TestNode } from './harness.js';
import { describeIfMet, meet, OPENSSL, type Verdict } from '../requirements.js';
import { UWS_SKIP_REASON } from '../http/uws.fixture.js';
import { createCertificate, fetchTrusting, httpsCall, type TestCertificate } from './tls.fixture.js';

const openssl = await meet(OPENSSL);
const PROXY = '127.0.0.2';
const DISCOVERY = '/.well-known/openid-configuration';

/**
 * The uws variant needs a uWebSockets.js build that loads here; without one (Node 24 on this
 * glibc) the node serves with node:http, which the node variant covers, so it is skipped with the
 * reason (an environment fact like the adapter suite's, not a missing tool: never a CI failure).
 */
const verdictFor = (adapter: 'uws' | 'node'): Verdict =>
  adapter === 'uws' && UWS_SKIP_REASON !== undefined && openssl.outcome === 'run' ? { requirement: 'uWebSockets.js', outcome: 'skip', reason: UWS_SKIP_REASON } : openssl;

for (const adapter of ['uws', 'node'] as const) describeIfMet(verdictFor(adapter), `TLS and trusted proxies (${adapter} adapter)`, () => {
  let cert: TestCertificate;
  let node: TestNode;
  let call: (options: Parameters<typeof httpsCall>[2]) => ReturnType<typeof httpsCall>;
  let authed: (method: string, path: string, body?: unknown, headers?: Record<string, string>, from?: string) => ReturnType<typeof httpsCall>;

  beforeAll(async () => {
    cert = createCertificate();
    node = await startTestNode({
      env: { TESSERA_HTTP: adapter, TESSERA_TLS_CERT_PATH: cert.certPath, TESSERA_TLS_KEY_PATH: cert.keyPath, TESSERA_TRUSTED_PROXIES: `${PROXY}/32` },
    });
    call = (options) => httpsCall(node.httpPort, cert.cert, options);
    authed = (method, path, body, headers = {}, from) =>
      call({ method, path, from, body: body === undefined ? undefined : JSON.stringify(body), headers: { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json', ...headers } });
  });
  afterAll(async () => {
    await node.stop();
    node.cleanup();
    rmSync(cert.dir, { recursive: true, force: true });
  });

  it('serves HTTPS only, and discovery names the https issuer', async () => {
    expect(node.logs.find((l) => l.msg === 'listening')).toMatchObject({ tls: true, http: adapter });
    const discovery = await call({ path: DISCOVERY });
    expect(discovery.status).toBe(200);
    expect(discovery.body.issuer).toBe(`https://localhost:${node.httpPort}`);
    expect(discovery.body.token_endpoint).toBe(`https://localhost:${node.httpPort}/oauth/v2/token`);
    await expect(fetch(`http://127.0.0.1:${node.httpPort}/healthz`)).rejects.toThrow(); // no plain HTTP on the port
  });

  it('issues a token to openid-client over TLS', async () => {
    const user = await authed('POST', '/resources/v3alpha/users', { machine: { username: `tls-bot-${adapter}`, name: 'TLS bot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' } });
    expect(user.status).toBe(201);
    const secret = await authed('POST', `/resources/v3alpha/users/${user.body.details.id as string}/_generate_secret`);
    const tlsFetch = fetchTrusting(cert.cert);
    const config = await oidc.discovery(new URL(`https://localhost:${node.httpPort}`), secret.body.clientId, secret.body.clientSecret, undefined, { [oidc.customFetch]: tlsFetch });
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'profile' });
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!), { [joseFetch]: tlsFetch });
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: `https://localhost:${node.httpPort}` });
    expect(payload.sub).toBe(user.body.details.id);
  });

  it('serves gRPC over TLS to @grpc/grpc-js', async () => {
    const org = await authed('POST', '/resources/v3alpha/organizations', { name: `TLS gRPC ${adapter}` });
    const client = new grpc.Client(`127.0.0.1:${node.grpcPort}`, grpc.credentials.createSsl(cert.cert), {
      'grpc.default_authority': `localhost:${node.grpcPort}`,
      'grpc.ssl_target_name_override': 'localhost',
    });
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${node.adminToken}`);
    const response = await new Promise<ReturnType<typeof fromBinary<typeof GetOrganizationResponseSchema>>>((resolve, reject) => {
      client.makeUnaryRequest(
        `/${PlatformOrganizations.typeName}/GetOrganization`,
        (m: ReturnType<typeof create<typeof GetOrganizationRequestSchema>>) => Buffer.from(toBinary(GetOrganizationRequestSchema, m)),
        (b: Buffer) => fromBinary(GetOrganizationResponseSchema, b),
        create(GetOrganizationRequestSchema, { id: String(org.body.details.id) }),
        metadata,
        (err, value) => (err ? reject(err) : resolve(value!)),
      );
    });
    client.close();
    expect(response.organization?.organization?.name).toBe(`TLS gRPC ${adapter}`);
  });

  it('ignores forwarding headers from an untrusted peer and honours the trusted proxy', async () => {
    const forwarded = { 'x-forwarded-host': 'id.example.com:9443', 'x-forwarded-proto': 'http', 'x-forwarded-for': '198.51.100.9' };
    const direct = await call({ path: DISCOVERY, headers: forwarded });
    expect(direct.body.issuer).toBe(`https://localhost:${node.httpPort}`);
    // From the proxy address, the forwarded Host picks the tenant: id.example.com is no instance.
    const unknownTenant = await call({ path: DISCOVERY, headers: forwarded, from: PROXY });
    expect(unknownTenant.status).toBe(404);
    const viaProxy = await call({ path: DISCOVERY, headers: { ...forwarded, 'x-forwarded-host': 'localhost:9443' }, from: PROXY });
    expect(viaProxy.status).toBe(200);
    expect(viaProxy.body.issuer).toBe('http://localhost:9443');
    const rfc7239 = await call({ path: DISCOVERY, headers: { forwarded: 'for=198.51.100.9;proto=https;host=localhost' }, from: PROXY });
    expect(rfc7239.body.issuer).toBe('https://localhost');
  });

  it('records the client address a trusted proxy reports, and the peer otherwise', async () => {
    const human = await authed('POST', '/resources/v3alpha/users', { human: { username: `tls-user-${adapter}`, profile: { givenName: 'T', familyName: 'L' }, email: { address: `tls-${adapter}@example.com` } } });
    expect(human.status).toBe(201);
    const loginName = `tls-user-${adapter}@default.localhost`;
    const ipOf = async (headers: Record<string, string>, from?: string) => {
      const created = await authed('POST', '/resources/v3alpha/sessions', { checks: { user: { loginName } } }, headers, from);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return (await authed('GET', `/resources/v3alpha/sessions/${created.body.details.id as string}`)).body.session.userAgent.ip;
    };
    expect(await ipOf({ 'x-forwarded-for': '198.51.100.9' })).toBe('127.0.0.1');
    expect(await ipOf({ 'x-forwarded-for': '203.0.113.5, 198.51.100.9' }, PROXY)).toBe('198.51.100.9');
    expect(await ipOf({}, PROXY)).toBe(PROXY);
  });
});

describeIfMet(openssl, 'TLS configuration errors', () => {
  it('stops the start with a message naming the file when the key does not belong to the certificate', async () => {
    const [a, b] = [createCertificate(), createCertificate()];
    try {
      const result = await runCli(['start'], { TESSERA_DATA_DIR: `${a.dir}/data`, TESSERA_PORT: '0', TESSERA_GRPC_PORT: '0', TESSERA_TLS_CERT_PATH: a.certPath, TESSERA_TLS_KEY_PATH: b.keyPath });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`TESSERA_TLS_KEY_PATH: the key in ${b.keyPath} does not belong to the certificate in ${a.certPath}`);
      const half = await runCli(['start'], { TESSERA_DATA_DIR: `${a.dir}/data`, TESSERA_TLS_CERT_PATH: a.certPath });
      expect({ code: half.code, stderr: half.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('tlsKeyPath (TESSERA_TLS_KEY_PATH): set TESSERA_TLS_CERT_PATH and TESSERA_TLS_KEY_PATH together') });
    } finally {
      for (const c of [a, b]) rmSync(c.dir, { recursive: true, force: true });
    }
  });
});
