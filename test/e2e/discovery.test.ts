/**
 * Discovery and JWKS against a started node, as a relying party sees them: plain fetch and
 * jose's remote key set; the issuer equals the URL the client used; cache headers and 304;
 * unknown hosts and the absent OAuth AS metadata answer 404.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createRemoteJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { fetchJwks } from './web-keys.fixture.js';
import { accessLine, firstInstanceId } from './access-log.fixture.js';

let node: TestNode;

// A byte limit below the 4 KB the pinned uWebSockets.js build keeps of a head split across reads
// (docs/security.md, "Input limits"), so the 431 below does not depend on how the kernel splits it.
const MAX_HEADER_BYTES = 3000;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_MAX_HEADER_BYTES: String(MAX_HEADER_BYTES) } });
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

async function discover(): Promise<{ response: Response; metadata: Record<string, unknown> }> {
  const response = await fetch(`${node.baseUrl}/.well-known/openid-configuration`);
  return { response, metadata: (await response.json()) as Record<string, unknown> };
}

describe('GET /.well-known/openid-configuration', () => {
  it('names the issuer the client used and every endpoint of seed 001 under it', async () => {
    const { response, metadata } = await discover();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('max-age=300');
    const issuer = node.baseUrl;
    expect(metadata).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/v2/authorize`,
      token_endpoint: `${issuer}/oauth/v2/token`,
      introspection_endpoint: `${issuer}/oauth/v2/introspect`,
      userinfo_endpoint: `${issuer}/oidc/v1/userinfo`,
      revocation_endpoint: `${issuer}/oauth/v2/revoke`,
      end_session_endpoint: `${issuer}/oidc/v1/end_session`,
      jwks_uri: `${issuer}/oauth/v2/keys`,
    });
    expect(metadata.device_authorization_endpoint).toBeUndefined();
  });

  it('lists what Tessera supports (OIDC Discovery §3 required members included)', async () => {
    const { metadata } = await discover();
    expect(metadata).toMatchObject({
      scopes_supported: ['openid', 'profile', 'email', 'phone', 'address', 'offline_access'],
      response_types_supported: ['code', 'id_token', 'id_token token'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      subject_types_supported: ['public'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      code_challenge_methods_supported: ['S256'],
      acr_values_supported: ['urn:platform:loa:1fa', 'urn:platform:loa:2fa'],
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
    });
    expect(metadata.id_token_signing_alg_values_supported).toContain('RS256');
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'implicit', 'refresh_token', 'client_credentials']));
    expect(metadata.grant_types_supported).not.toContain('urn:ietf:params:oauth:grant-type:device_code');
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['sub', 'iss', 'aud', 'exp', 'iat', 'email', 'preferred_username']));
    expect(metadata.ui_locales_supported).toEqual(expect.arrayContaining(['en', 'de']));
  });

  it('follows the Host: no port → no port; a default port is dropped', async () => {
    const bare = await api(node, '')('GET', '/.well-known/openid-configuration', undefined, { host: 'localhost' });
    expect(bare.body.issuer).toBe('http://localhost');
    expect(bare.body.token_endpoint).toBe('http://localhost/oauth/v2/token');
    const defaultPort = await api(node, '')('GET', '/.well-known/openid-configuration', undefined, { host: 'LOCALHOST:80' });
    expect(defaultPort.body.issuer).toBe('http://localhost');
    const badPort = await api(node, '')('GET', '/.well-known/openid-configuration', undefined, { host: 'localhost:x' });
    expect(badPort.status).toBe(400);
  });

  it('sends a strong ETag, the same on every request, and answers a matching If-None-Match with 304 and no body', async () => {
    const first = await discover();
    const etag = first.response.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const second = await discover();
    expect(second.response.headers.get('etag')).toBe(etag);
    expect(second.metadata).toEqual(first.metadata);
    for (const match of [etag!, `W/${etag!}`, `"other", ${etag!}`, '*']) {
      const again = await fetch(`${node.baseUrl}/.well-known/openid-configuration`, { headers: { 'if-none-match': match } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('max-age=300');
    }
    // Positive control: another tag gets the whole document.
    const other = await fetch(`${node.baseUrl}/.well-known/openid-configuration`, { headers: { 'if-none-match': '"other"' } });
    expect(other.status).toBe(200);
    expect(((await other.json()) as Record<string, unknown>).issuer).toBe(node.baseUrl);
  });

  it('has one document and ETag per issuer: another Host gets its own', async () => {
    const call = api(node, '');
    const bare = await call('GET', '/.well-known/openid-configuration', undefined, { host: 'localhost' });
    const withPort = await call('GET', '/.well-known/openid-configuration', undefined, { host: 'localhost:8443' });
    expect(bare.body.issuer).toBe('http://localhost');
    expect(withPort.body.issuer).toBe('http://localhost:8443');
    expect(bare.headers.etag).not.toBe(withPort.headers.etag);
    const revalidated = await call('GET', '/.well-known/openid-configuration', undefined, { host: 'localhost:8443', 'if-none-match': String(bare.headers.etag) });
    expect(revalidated.status).toBe(200);
    expect(revalidated.body.issuer).toBe('http://localhost:8443');
    expect((await call('GET', '/.well-known/openid-configuration', undefined, { host: 'localhost', 'if-none-match': String(bare.headers.etag) })).status).toBe(304);
  });

  it('answers CORS requests from browsers', async () => {
    const response = await fetch(`${node.baseUrl}/.well-known/openid-configuration`, { headers: { origin: 'https://app.example.com' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });
});

describe('GET /oauth/v2/keys', () => {
  it('publishes at least two public keys with distinct kids, usable by a jose remote key set', async () => {
    const { status, headers, keys } = await fetchJwks(node);
    expect(status).toBe(200);
    expect(headers['cache-control']).toBe('max-age=300, must-revalidate');
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String), n: expect.any(String), e: 'AQAB' });
      expect(Object.keys(key).filter((m) => ['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(m))).toEqual([]);
    }
    const remote = createRemoteJWKSet(new URL(`${node.baseUrl}/oauth/v2/keys`));
    for (const key of keys) await expect(remote({ alg: 'RS256', kid: key.kid })).resolves.toBeDefined();
  });

  it('revalidates with its ETag: 304 for a matching If-None-Match (strong, weak, list), 200 otherwise', async () => {
    const first = await fetchJwks(node);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const second = await fetchJwks(node);
    expect(second.headers.etag).toBe(etag);
    expect(second.keys).toEqual(first.keys);
    for (const match of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetchJwks(node, { 'if-none-match': match });
      expect(again.status).toBe(304);
      expect(again.keys).toEqual([]);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe('max-age=300, must-revalidate');
    }
    expect((await fetchJwks(node, { 'if-none-match': '"other"' })).status).toBe(200);
  });
});

describe('answered from memory (before fair admission, once held)', () => {
  const comparable = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'x-request-id' && name !== 'date'));

  it('an issuer\'s first document (the handler\'s path) and the next ones (from memory) are the same reply', async () => {
    const call = api(node, '');
    const host = { host: 'localhost:7411' }; // no document built for this issuer yet
    const first = await call('GET', '/.well-known/openid-configuration', undefined, host);
    const later = await call('GET', '/.well-known/openid-configuration', undefined, host);
    expect(first.status).toBe(200);
    expect(first.body.issuer).toBe('http://localhost:7411');
    expect(later.status).toBe(200);
    expect(later.body).toEqual(first.body);
    expect(comparable(later.headers)).toEqual(comparable(first.headers));
    expect(later.headers['access-control-allow-origin']).toBe('*');
    expect(later.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it.each(['/oauth/v2/keys', '/.well-known/openid-configuration'])('%s: every reply has its X-Request-Id, access-log line (route, status, instance) and HEAD its length without a body', async (path) => {
    const call = api(node, '');
    const got = await call('GET', path);
    const length = Number(got.headers['content-length']);
    expect(length).toBeGreaterThan(100);
    const head = await call('HEAD', path);
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    expect(Number(head.headers['content-length'])).toBe(length);
    expect(head.headers.etag).toBe(got.headers.etag);
    const revalidated = await call('GET', path, undefined, { 'if-none-match': String(got.headers.etag), 'x-request-id': `revalidate-${path.length}` });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers['x-request-id']).toBe(`revalidate-${path.length}`);
    for (const [reply, status] of [[got, 200], [head, 200], [revalidated, 304]] as const) {
      const requestId = String(reply.headers['x-request-id']);
      expect(await accessLine(node, requestId)).toMatchObject({ method: reply === head ? 'HEAD' : 'GET', route: path, status, instanceId: firstInstanceId(node) });
    }
  });

  it.each(['/oauth/v2/keys', '/.well-known/openid-configuration'])('%s: an unknown host is still 404 after the known one was answered from memory', async (path) => {
    const call = api(node, '');
    expect((await call('GET', path)).status).toBe(200); // positive control: held for the known host
    const unknown = await call('GET', path, undefined, { host: 'unknown-after-held.example.com' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details[0].id).toBe('instance.not_found');
  });

  // The held replies skip admission, not the header limits (TESSERA_MAX_HEADER_COUNT 40 by
  // default, TESSERA_MAX_HEADER_BYTES as set above): each 431 has a 200 beside it on the same path.
  it.each(['/oauth/v2/keys', '/.well-known/openid-configuration'])('%s, held, answers 431 for too many or too large header fields', async (path) => {
    const url = `${node.baseUrl}${path}`;
    expect((await fetch(url)).status).toBe(200); // held from here on
    const many = Object.fromEntries(Array.from({ length: 36 }, (_, i) => [`x-h${i}`, 'v'])); // with fetch's own fields, over 40
    expect((await fetch(url, { headers: many })).status).toBe(431);
    expect((await fetch(url, { headers: { 'x-h0': 'v' } })).status).toBe(200);
    expect((await fetch(url, { headers: { 'x-big': 'v'.repeat(MAX_HEADER_BYTES + 100) } })).status).toBe(431);
    expect((await fetch(url, { headers: { 'x-big': 'v'.repeat(MAX_HEADER_BYTES - 500) } })).status).toBe(200); // fetch's own fields fit in the rest
  });
});

describe('errors', () => {
  it.each(['/oauth/v2/keys', '/.well-known/openid-configuration'])('%s of an unknown host → 404 instance.not_found', async (path) => {
    const response = await api(node, '')('GET', path, undefined, { host: 'unknown.example.com' });
    expect(response.status).toBe(404);
    expect(response.body.details[0].id).toBe('instance.not_found');
  });

  it('has no OAuth 2.0 authorization server metadata (404)', async () => {
    const response = await fetch(`${node.baseUrl}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(404);
  });
});
