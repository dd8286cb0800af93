/**
 * The organization-domain challenge (`_validate`): the token must be published as a TXT record
 * `_platform-challenge.<domain>` (DNS) or served at
 * `https://<domain>/.well-known/platform-challenge/<token>.txt` (HTTP). The I/O is a port,
 * `DomainValidator`, so the check runs against a fake in unit tests; the production
 * implementation uses node:dns and node:http(s) with short timeouts, follows no redirects and
 * reads at most 4 KiB. `domainValidationDnsServers` / `domainValidationHttpBase` point it at a
 * private resolver or proxy (also what the e2e tests use).
 */
import { Resolver } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dnsChallengeName, httpChallengePath, type DomainValidationType } from '../../../../actors/index.js';

export interface HttpResult {
  readonly status: number;
  readonly body: string;
}

/** The I/O of the challenge check. */
export interface DomainValidator {
  /** The TXT records of a name (each record's strings joined); [] when there are none. */
  dnsTxt(name: string): Promise<string[]>;
  /** GET without redirects; the body is cut after a few KiB. */
  httpGet(url: string): Promise<HttpResult>;
}

export interface DomainChallengeInput {
  readonly domain: string;
  readonly validationType: DomainValidationType;
  readonly token: string;
}

export type ChallengeOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** The URL that must serve the token (HTTP challenge). */
export function httpChallengeUrl(domain: string, token: string): string {
  return `https://${domain}${httpChallengePath(token)}`;
}

/** Checks the published challenge; never throws (lookup failures are a failed check). */
export async function checkDomainChallenge(validator: DomainValidator, input: DomainChallengeInput): Promise<ChallengeOutcome> {
  try {
    if (input.validationType === 'dns') {
      const records = await validator.dnsTxt(dnsChallengeName(input.domain));
      return records.some((r) => r.trim() === input.token) ? { ok: true } : { ok: false, reason: `no TXT record with the token (${records.length} found)` };
    }
    const response = await validator.httpGet(httpChallengeUrl(input.domain, input.token));
    if (response.status !== 200) return { ok: false, reason: `HTTP status ${response.status}` };
    return response.body.trim() === input.token ? { ok: true } : { ok: false, reason: 'the file does not hold the token' };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'lookup failed' };
  }
}

export interface DomainValidatorOptions {
  /** DNS servers (`ip` or `ip:port`); empty: the system resolver. */
  readonly dnsServers?: readonly string[];
  /** Fetch HTTP challenges from this base URL (with `Host: <domain>`) instead of the domain. */
  readonly httpBase?: string | undefined;
  readonly timeoutMs?: number;
}

const MAX_BODY_BYTES = 4096;
const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'ENONAME']);

/** The production DomainValidator. */
export function createDomainValidator(options: DomainValidatorOptions = {}): DomainValidator {
  const timeoutMs = options.timeoutMs ?? 5000;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (options.dnsServers !== undefined && options.dnsServers.length > 0) resolver.setServers([...options.dnsServers]);
  return {
    async dnsTxt(name) {
      try {
        return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
      } catch (error) {
        if (NO_RECORDS.has((error as NodeJS.ErrnoException).code ?? '')) return [];
        throw error;
      }
    },
    httpGet: (url) => fetchChallenge(url, options.httpBase, timeoutMs),
  };
}

function fetchChallenge(url: string, httpBase: string | undefined, timeoutMs: number): Promise<HttpResult> {
  const canonical = new URL(url);
  const target = httpBase === undefined ? canonical : new URL(canonical.pathname, httpBase);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpResult>((resolve, reject) => {
    const req = send(
      target,
      {
        method: 'GET',
        headers: { host: canonical.host, 'user-agent': 'Tessera domain validation', accept: 'text/plain' },
        servername: canonical.hostname,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_BODY_BYTES) return;
          chunks.push(Buffer.from(chunk.subarray(0, MAX_BODY_BYTES - size)));
          size += chunk.length;
          if (size >= MAX_BODY_BYTES) res.destroy();
        });
        const done = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        res.on('end', done);
        res.on('close', done);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
