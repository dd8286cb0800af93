/**
 * The domain challenge: the check logic against a fake DomainValidator (the port), and the
 * production validator against a local DNS responder and HTTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkDomainChallenge,
  createDomainValidator,
  type DomainValidator,
  type HttpResult,
} from '../../src/api/resources/domains/domain-validator.js';
import { startChallengeServer, startDnsResponder, type ChallengeServer, type DnsResponder } from '../e2e/challenge.fixture.js';

function fakeValidator(txt: Record<string, string[]>, http: Record<string, HttpResult> = {}): DomainValidator & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async dnsTxt(name) {
      asked.push(name);
      if (name.includes('broken')) throw new Error('SERVFAIL');
      return txt[name] ?? [];
    },
    async httpGet(url) {
      asked.push(url);
      return http[url] ?? { status: 404, body: '' };
    },
  };
}

describe('checkDomainChallenge', () => {
  it('DNS: a TXT record at _platform-challenge.<domain> holding the token', async () => {
    const validator = fakeValidator({ '_platform-challenge.acme.com': ['other', ' tok '] });
    expect(await checkDomainChallenge(validator, { domain: 'acme.com', validationType: 'dns', token: 'tok' })).toEqual({ ok: true });
    expect(validator.asked).toEqual(['_platform-challenge.acme.com']);
    expect((await checkDomainChallenge(validator, { domain: 'acme.com', validationType: 'dns', token: 'nope' })).ok).toBe(false);
    expect((await checkDomainChallenge(validator, { domain: 'none.com', validationType: 'dns', token: 'tok' })).ok).toBe(false);
    expect(await checkDomainChallenge(validator, { domain: 'broken.com', validationType: 'dns', token: 'tok' })).toEqual({ ok: false, reason: 'SERVFAIL' });
  });

  it('HTTP: https://<domain>/.well-known/platform-challenge/<token>.txt answering 200 with the token', async () => {
    const url = 'https://acme.com/.well-known/platform-challenge/tok.txt';
    const ok = fakeValidator({}, { [url]: { status: 200, body: 'tok\n' } });
    expect(await checkDomainChallenge(ok, { domain: 'acme.com', validationType: 'http', token: 'tok' })).toEqual({ ok: true });
    expect(ok.asked).toEqual([url]);
    const wrong = fakeValidator({}, { [url]: { status: 200, body: 'other' } });
    expect((await checkDomainChallenge(wrong, { domain: 'acme.com', validationType: 'http', token: 'tok' })).ok).toBe(false);
    const missing = fakeValidator({}, { [url]: { status: 404, body: 'tok' } });
    expect(await checkDomainChallenge(missing, { domain: 'acme.com', validationType: 'http', token: 'tok' })).toEqual({ ok: false, reason: 'HTTP status 404' });
  });
});

describe('createDomainValidator (production implementation)', () => {
  let dns: DnsResponder;
  let http: ChallengeServer;
  beforeAll(async () => {
    [dns, http] = await Promise.all([startDnsResponder(), startChallengeServer()]);
  });
  afterAll(async () => {
    await Promise.all([dns.close(), http.close()]);
  });

  it('reads TXT records from the configured DNS server; an unknown name has none', async () => {
    dns.txt.set('_platform-challenge.acme.test', ['token-1', 'token-2']);
    const validator = createDomainValidator({ dnsServers: [`127.0.0.1:${dns.port}`], timeoutMs: 2000 });
    expect(await validator.dnsTxt('_platform-challenge.acme.test')).toEqual(['token-1', 'token-2']);
    expect(await validator.dnsTxt('_platform-challenge.unknown.test')).toEqual([]);
  });

  it('fetches the HTTP challenge from the base URL with Host: <domain>, without following redirects', async () => {
    http.files.set('acme.test/.well-known/platform-challenge/abc.txt', 'abc');
    const validator = createDomainValidator({ httpBase: `http://127.0.0.1:${http.port}`, timeoutMs: 2000 });
    expect(await validator.httpGet('https://acme.test/.well-known/platform-challenge/abc.txt')).toEqual({ status: 200, body: 'abc' });
    expect(http.requests.at(-1)).toMatchObject({ path: '/.well-known/platform-challenge/abc.txt', headers: { host: 'acme.test' } });
    expect((await validator.httpGet('https://acme.test/.well-known/platform-challenge/nope.txt')).status).toBe(404);
    expect((await validator.httpGet('https://acme.test/redirect')).status).toBe(302);
  });

  it('reads at most 4 KiB of a body', async () => {
    http.files.set('big.test/.well-known/platform-challenge/big.txt', 'x'.repeat(100_000));
    const validator = createDomainValidator({ httpBase: `http://127.0.0.1:${http.port}`, timeoutMs: 2000 });
    expect((await validator.httpGet('https://big.test/.well-known/platform-challenge/big.txt')).body.length).toBe(4096);
  });
});
