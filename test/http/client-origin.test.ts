/**
 * The client origin (address, scheme, Host): forwarding headers only from trusted proxies,
 * walked from the node outwards to the first untrusted address (RFC 7239 §5.2), malformed
 * values dropped; and the wrapper that puts the result on every request.
 */
import { describe, expect, it } from 'vitest';
import { createOriginResolver, withClientOrigin } from '../../src/http/client-origin.js';
import type { HttpReply, HttpRequest } from '../../src/http/types.js';

const resolve = createOriginResolver({ trustedProxies: ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'], defaultScheme: 'http' });
const HOST = { host: 'node.internal:8080' };

describe('createOriginResolver', () => {
  it('ignores forwarding headers from an untrusted peer', () => {
    const headers = { ...HOST, 'x-forwarded-for': '1.2.3.4', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'id.example.com', forwarded: 'for=1.2.3.4' };
    expect(resolve('192.0.2.7', headers)).toEqual({ address: '192.0.2.7', scheme: 'http', host: 'node.internal:8080' });
  });

  it('takes client, scheme and host from a trusted proxy', () => {
    const headers = { ...HOST, 'x-forwarded-for': '198.51.100.9', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'id.example.com' };
    expect(resolve('10.1.2.3', headers)).toEqual({ address: '198.51.100.9', scheme: 'https', host: 'id.example.com' });
  });

  it('walks a chain of trusted proxies to the first untrusted address; spoofed entries before it are ignored', () => {
    expect(resolve('10.0.0.1', { ...HOST, 'x-forwarded-for': '6.6.6.6, 198.51.100.9, 10.0.0.2' }).address).toBe('198.51.100.9');
    expect(resolve('10.0.0.1', { ...HOST, 'x-forwarded-for': '198.51.100.9, 10.0.0.3, 10.0.0.2' }).address).toBe('198.51.100.9');
  });

  it('aligns X-Forwarded-Proto and -Host with the hop they describe', () => {
    // The outer proxy saw https from the client; the inner one got http from the outer one.
    const headers = { ...HOST, 'x-forwarded-for': '198.51.100.9, 10.0.0.2', 'x-forwarded-proto': 'https, http' };
    expect(resolve('10.0.0.1', headers)).toMatchObject({ address: '198.51.100.9', scheme: 'https' });
  });

  it('reads RFC 7239 Forwarded (IPv6 with port, quoted) and prefers it to X-Forwarded-*', () => {
    const headers = { ...HOST, forwarded: 'for="[2001:db8::17]:4711";proto=https;host=id.example.com', 'x-forwarded-for': '203.0.113.1' };
    expect(resolve('127.0.0.1', headers)).toEqual({ address: '2001:db8::17', scheme: 'https', host: 'id.example.com' });
    expect(resolve('fd00::1', { ...HOST, forwarded: 'for=198.51.100.9, for=10.9.9.9' }).address).toBe('198.51.100.9');
  });

  it('treats an IPv4-mapped IPv6 peer as its IPv4 address', () => {
    expect(resolve('::ffff:127.0.0.1', { ...HOST, 'x-forwarded-for': '198.51.100.9' }).address).toBe('198.51.100.9');
  });

  it('drops values that do not parse and keeps what it knows', () => {
    const headers = { ...HOST, 'x-forwarded-for': 'not-an-ip', 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example/path' };
    expect(resolve('10.0.0.1', headers)).toEqual({ address: '10.0.0.1', scheme: 'http', host: 'node.internal:8080' });
    expect(resolve('10.0.0.1', { ...HOST, forwarded: 'for=unknown;proto=https' })).toEqual({ address: '10.0.0.1', scheme: 'https', host: 'node.internal:8080' });
  });

  it('uses the default scheme when no trusted proxy reports one', () => {
    const https = createOriginResolver({ trustedProxies: [], defaultScheme: 'https' });
    expect(https('192.0.2.7', { ...HOST, 'x-forwarded-proto': 'http' })).toMatchObject({ scheme: 'https' });
  });
});

describe('withClientOrigin', () => {
  const echo = (req: HttpRequest): HttpReply => ({ status: 200, body: JSON.stringify({ address: req.remoteAddress, scheme: req.scheme, host: req.headers.host }) });
  const request = (remoteAddress: string, headers: Record<string, string>): HttpRequest => ({
    method: 'GET', path: '/', query: '', headers, body: Buffer.alloc(0), remoteAddress, scheme: 'http', signal: new AbortController().signal, params: {}, startedAt: 0, requestId: 'test-request',
  });

  it('is the handler itself when there is nothing to decide', () => {
    expect(withClientOrigin(echo, { trustedProxies: [], defaultScheme: 'http' })).toBe(echo);
  });

  it('puts the resolved origin on the request before the handler runs', async () => {
    const handler = withClientOrigin(echo, { trustedProxies: ['127.0.0.1'], defaultScheme: 'http' });
    const reply = await handler(request('127.0.0.1', { host: 'node:1', 'x-forwarded-for': '198.51.100.9', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'id.example.com' }));
    expect(JSON.parse(String(reply.body))).toEqual({ address: '198.51.100.9', scheme: 'https', host: 'id.example.com' });
    const untrusted = await handler(request('192.0.2.1', { host: 'node:1', 'x-forwarded-host': 'id.example.com' }));
    expect(JSON.parse(String(untrusted.body))).toEqual({ address: '192.0.2.1', scheme: 'http', host: 'node:1' });
  });

  it('marks every request https on a TLS listener', async () => {
    const reply = await withClientOrigin(echo, { trustedProxies: [], defaultScheme: 'https' })(request('192.0.2.1', { host: 'node:1' }));
    expect(JSON.parse(String(reply.body))).toMatchObject({ scheme: 'https' });
  });
});
