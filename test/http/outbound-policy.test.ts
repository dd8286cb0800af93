/**
 * The outbound policy (SSRF guard): the address rules; callTarget and the guarded fetch of the
 * identity-provider client against a real server on 127.0.0.1 — refused without connecting by
 * default (as an IP literal and as `localhost`, which goes through DNS), reached when private
 * networks are allowed; redirects are handed back, never followed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../actors/index.js';
import { callTarget, type ResolvedTarget } from '../../src/executions/target-call.js';
import { checkLiteralHost, guardedFetch, isPublicAddress, OutboundAddressRefused, PUBLIC_ONLY } from '../../src/http/outbound-policy.js';

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '203.0.114.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
  it.each([
    '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fd00::1', 'fc12::3', 'ff02::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', 'not-an-ip',
  ])('%s is not', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
  it('refuses non-public IP literals (bracketed IPv6 too) unless private networks are allowed', () => {
    expect(() => checkLiteralHost('127.0.0.1', PUBLIC_ONLY)).toThrow(OutboundAddressRefused);
    expect(() => checkLiteralHost('[::1]', PUBLIC_ONLY)).toThrow(OutboundAddressRefused);
    expect(() => checkLiteralHost('8.8.8.8', PUBLIC_ONLY)).not.toThrow();
    expect(() => checkLiteralHost('example.com', PUBLIC_ONLY)).not.toThrow(); // names are checked after DNS
    expect(() => checkLiteralHost('127.0.0.1', { allowPrivateNetworks: true })).not.toThrow();
  });
});

describe('callTarget with the network policy', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (req.url === '/moved') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      res.writeHead(200, { 'content-type': 'application/json', 'x-probe': 'yes' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const target = (url: string): ResolvedTarget => ({ id: 't1', targetType: 'rest_request_response', url, timeoutMs: 5_000, executionType: 'interrupt', signingKey: 'k', previousSigningKey: '', previousKeyExpiresAt: 0 });
  const codeOf = (error: unknown) => (error instanceof AppError ? error.code : String(error));

  it('refuses loopback targets by default without connecting, by IP and by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      await expect(callTarget(target(`http://${host}:${port}/hook`), '{}', { now: Date.now() }).catch(codeOf)).resolves.toBe('execution.target_address_refused');
    }
    expect(hits).toBe(0);
  });

  it('reaches them when private networks are allowed', async () => {
    await expect(callTarget(target(`http://localhost:${port}/hook`), '{}', { now: Date.now(), network: { allowPrivateNetworks: true } })).resolves.toEqual({ ok: true });
    expect(hits).toBe(1);
  });

  it('guardedFetch (the identity-provider client): refused by default, a standard Response when allowed, no redirects', async () => {
    const before = hits;
    for (const host of ['127.0.0.1', 'localhost']) {
      await expect(guardedFetch(PUBLIC_ONLY)(`http://${host}:${port}/.well-known/openid-configuration`, {})).rejects.toBeInstanceOf(OutboundAddressRefused);
    }
    expect(hits).toBe(before);
    const allowed = guardedFetch({ allowPrivateNetworks: true });
    const answer = await allowed(`http://localhost:${port}/x`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-probe')).toBe('yes');
    expect(await answer.json()).toEqual({ ok: true });
    const moved = await allowed(`http://localhost:${port}/moved`, {});
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toContain('169.254.169.254');
  });
});
