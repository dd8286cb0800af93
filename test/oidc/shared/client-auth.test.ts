/**
 * Client authentication parsing and checks (RFC 6749 §2.3.1, RFC 7523 §2.2): one mechanism per
 * request, form-urlencoded Basic credentials, the app's configured method, machine users only
 * where allowed. The client lookup is a port, replaced here by a map.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OAuthError, type AggregateRecord, type Application, type MachineUser, type Project, type TtlStore } from '../../../actors/index.js';
import { NO_RATE_LIMITS } from '../../../src/http/rate-limits.js';
import { authenticateClient, type ClientCredentials, isSecretValid, parseClientCredentials } from '../../../src/oidc/shared/client-auth.js';
import { type ClientCache, decodeSecretDigest, type ResolvedClient, resolvedApp, resolvedMachine } from '../../../src/oidc/shared/client-cache.js';
import { parseUrlEncoded } from '../../../src/oidc/shared/form.js';

const digest = (secret: string) => createHash('sha256').update(secret).digest('base64url');
const basicHeader = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;
const params = (text: string) => parseUrlEncoded(text);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof OAuthError ? error.oauthCode : 'other';
  }
  return undefined;
}

describe('parseClientCredentials', () => {
  it('decodes form-urlencoded Basic credentials', () => {
    expect(parseClientCredentials(params(''), basicHeader('my%20app:s%3Acret+x'))).toEqual({ method: 'basic', clientId: 'my app', secret: 's:cret x' });
  });

  it.each<[string, string, string | undefined, ClientCredentials]>([
    ['client_secret_post', 'client_id=a&client_secret=b', undefined, { method: 'post', clientId: 'a', secret: 'b' }],
    ['none', 'client_id=a', undefined, { method: 'none', clientId: 'a' }],
    ['private_key_jwt', 'client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=x.y.z', undefined, { method: 'private_key_jwt', clientId: undefined, assertion: 'x.y.z' }],
    ['nothing', 'grant_type=x', undefined, { method: 'absent' }],
    ['a Bearer header (not client authentication)', 'client_id=a', 'Bearer abc', { method: 'none', clientId: 'a' }],
    ['Basic with the same client_id in the body', 'client_id=a', basicHeader('a:b'), { method: 'basic', clientId: 'a', secret: 'b' }],
  ])('reads %s', (_name, body, header, expected) => {
    expect(parseClientCredentials(params(body), header)).toEqual(expected);
  });

  it.each<[string, string, string | undefined, string]>([
    ['Basic and client_secret', 'client_id=a&client_secret=b', basicHeader('a:b'), 'invalid_request'],
    ['client_secret and client_assertion', 'client_id=a&client_secret=b&client_assertion=x&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer', undefined, 'invalid_request'],
    ['Basic and a different client_id', 'client_id=other', basicHeader('a:b'), 'invalid_request'],
    ['a wrong assertion type', 'client_assertion=x&client_assertion_type=saml', undefined, 'invalid_request'],
    ['client_secret without client_id', 'client_secret=b', undefined, 'invalid_request'],
    ['Basic without a colon', '', basicHeader('ab'), 'invalid_client'],
    ['Basic that is not base64', '', 'Basic ###', 'invalid_client'],
    ['a repeated parameter', 'client_id=a&client_id=a', undefined, 'invalid_request'],
  ])('refuses %s', (_name, body, header, code) => {
    expect(codeOf(() => parseClientCredentials(params(body), header))).toBe(code);
  });
});

const meta = { version: 1, sequence: 1, createdAt: 0, changedAt: 0, owner: { type: 'org', id: 'o1' } } as const;
const app = (authMethod: 'basic' | 'post' | 'none', secret = 'app-secret'): ResolvedClient =>
  resolvedApp({
    app: { id: 'app1', meta, state: { orgId: 'o1', projectId: 'p1', name: 'A', clientId: 'app1', config: { type: 'api', api: { authMethod: 'basic' } }, secretDigest: digest(secret), keys: [] } } as unknown as AggregateRecord<Application>,
    project: { id: 'p1', meta, state: {} } as unknown as AggregateRecord<Project>,
  });
const withMethod = (client: ResolvedClient, authMethod: string): ResolvedClient =>
  client.kind !== 'app' ? client : { ...client, app: { ...client.app, app: { ...client.app.app, state: { ...client.app.app.state, config: { type: 'oidc', oidc: { authMethod, clockSkewMs: 0 } } as unknown as Application['config'] } } } };
const machine: ResolvedClient = resolvedMachine(
  { id: 'u1', meta, state: { type: 'machine', state: 'active', orgId: 'o1', username: 'bot', secretDigest: digest('bot-secret') } } as unknown as AggregateRecord<MachineUser>,
);

function context(clients: Record<string, ResolvedClient>) {
  const cache: ClientCache = { resolve: async (_instance, id) => clients[id] ?? { kind: 'unknown' }, reload: async (_instance, id) => clients[id] ?? { kind: 'unknown' } };
  const ttl = {} as TtlStore; // not reached without private_key_jwt
  return { clients: cache, limits: NO_RATE_LIMITS, ttl, instanceId: 'i1', issuer: 'http://localhost', endpointUrl: 'http://localhost/oauth/v2/token', now: 0 };
}
const all = { methods: ['basic', 'post', 'none', 'private_key_jwt'] as const, allowMachineUsers: true };

async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => (error instanceof OAuthError ? error.oauthCode : 'other'),
  );
}

describe('authenticateClient', () => {
  const ctx = context({ app1: withMethod(app('basic'), 'basic'), bot: machine, pub: withMethod(app('none'), 'none') });

  it('accepts the configured method with the right secret', async () => {
    expect((await authenticateClient({ method: 'basic', clientId: 'app1', secret: 'app-secret' }, ctx, all)).kind).toBe('app');
    expect((await authenticateClient({ method: 'none', clientId: 'pub' }, ctx, all)).kind).toBe('app');
    expect((await authenticateClient({ method: 'post', clientId: 'bot', secret: 'bot-secret' }, ctx, all)).kind).toBe('machine');
  });

  it.each<[string, ClientCredentials, { methods: readonly ('basic' | 'post' | 'none' | 'private_key_jwt')[]; allowMachineUsers: boolean }]>([
    ['a wrong secret', { method: 'basic', clientId: 'app1', secret: 'nope' }, all],
    ['another method than configured', { method: 'post', clientId: 'app1', secret: 'app-secret' }, all],
    ['none for a confidential client', { method: 'none', clientId: 'app1' }, all],
    ['an unknown client', { method: 'basic', clientId: 'ghost', secret: 'x' }, all],
    ['no credentials', { method: 'absent' }, all],
    ['a method this endpoint does not take', { method: 'none', clientId: 'pub' }, { methods: ['basic'], allowMachineUsers: true }],
    ['a machine user where none may call', { method: 'basic', clientId: 'bot', secret: 'bot-secret' }, { methods: ['basic'], allowMachineUsers: false }],
    ['a machine user with a wrong secret', { method: 'basic', clientId: 'bot', secret: 'nope' }, all],
  ])('refuses %s with invalid_client', async (_name, creds, policy) => {
    expect(await rejection(authenticateClient(creds, ctx, policy))).toBe('invalid_client');
  });

  it('compares secrets against the stored digest only', () => {
    expect(isSecretValid(decodeSecretDigest(digest('s')), 's')).toBe(true);
    expect(isSecretValid(decodeSecretDigest(digest('s')), 't')).toBe(false);
    expect(isSecretValid(decodeSecretDigest(''), '')).toBe(false);
  });

  it('tells apart digests that differ only in the last byte or in length', () => {
    const stored = createHash('sha256').update('s').digest();
    expect(isSecretValid(Buffer.from(stored), 's')).toBe(true); // the control: the same bytes match
    const lastFlipped = Buffer.from(stored);
    lastFlipped[31] = (stored[31] as number) ^ 1; // a SHA-256 digest has 32 bytes
    expect(isSecretValid(lastFlipped, 's')).toBe(false);
    const firstFlipped = Buffer.from(stored);
    firstFlipped[0] = (stored[0] as number) ^ 0x80; // a SHA-256 digest has 32 bytes
    expect(isSecretValid(firstFlipped, 's')).toBe(false);
    expect(isSecretValid(stored.subarray(0, 31), 's')).toBe(false);
    expect(isSecretValid(Buffer.concat([stored, Buffer.alloc(1)]), 's')).toBe(false);
  });
});

describe('authenticateClient against a held client', () => {
  /** `held` is what resolve answers synchronously (the instance state's value); `stored` what a reload reads. */
  function heldContext(held: Record<string, ResolvedClient>, stored: Record<string, ResolvedClient>) {
    const reloads: string[] = [];
    const cache: ClientCache = {
      resolve: (_instance, id) => held[id] ?? { kind: 'unknown' },
      reload: async (_instance, id) => (reloads.push(id), stored[id] ?? { kind: 'unknown' }),
    };
    return { ctx: { ...context({}), clients: cache }, reloads };
  }
  const rotated = (secret: string): ResolvedClient => withMethod(app('basic', secret), 'basic');

  it('re-reads a held client once when its secret fails, so a secret set elsewhere a moment ago is accepted', async () => {
    const { ctx, reloads } = heldContext({ app1: rotated('old') }, { app1: rotated('new') });
    expect((await authenticateClient({ method: 'basic', clientId: 'app1', secret: 'new' }, ctx, all)).kind).toBe('app');
    expect(reloads).toEqual(['app1']);
    expect((await authenticateClient({ method: 'basic', clientId: 'app1', secret: 'old' }, ctx, all)).kind).toBe('app'); // held and matching: no re-read
    expect(reloads).toEqual(['app1']);
  });

  it('refuses when the re-read client does not match either, and does not re-read an unknown id', async () => {
    const { ctx, reloads } = heldContext({ app1: rotated('old') }, { app1: rotated('new') });
    expect(await rejection(authenticateClient({ method: 'basic', clientId: 'app1', secret: 'wrong' }, ctx, all))).toBe('invalid_client');
    expect(reloads).toEqual(['app1']);
    expect(await rejection(authenticateClient({ method: 'basic', clientId: 'nobody', secret: 'x' }, ctx, all))).toBe('invalid_client');
    expect(reloads).toEqual(['app1']);
  });
});
