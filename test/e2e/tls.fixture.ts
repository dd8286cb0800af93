/**
 * HTTPS helpers for the TLS suite: a throwaway self-signed certificate for localhost made with
 * the openssl command line, requests over TLS that trust only it (optionally from another
 * loopback source address, to play a proxy), and the same as a fetch for openid-client.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  readonly dir: string;
  readonly certPath: string;
  readonly keyPath: string;
  readonly cert: Buffer;
}

/** A P-256 certificate for `localhost` and 127.0.0.1, valid for two days. */
export function createCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-tls-'));
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', keyPath, '-out', certPath,
  ], { stdio: 'ignore' });
  return { dir, certPath, keyPath, cert: readFileSync(certPath) };
}

export interface TlsReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: any;
}

/** One HTTPS request to 127.0.0.1:`port` trusting only `ca`; `from` picks the loopback source address. */
export function httpsCall(port: number, ca: Buffer, options: { method?: string; path: string; headers?: Record<string, string>; body?: string; from?: string }): Promise<TlsReply> {
  const init: RequestOptions = {
    host: '127.0.0.1',
    servername: 'localhost',
    port,
    ca,
    method: options.method ?? 'GET',
    path: options.path,
    headers: { host: `localhost:${port}`, ...options.headers },
    ...(options.from === undefined ? {} : { localAddress: options.from }),
  };
  return new Promise((resolve, reject) => {
    const req = request(init, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A fetch over node:https that trusts only `ca` (openid-client's customFetch). */
export function fetchTrusting(ca: Buffer) {
  return (url: string, options: { method: string; headers: Record<string, string> | Headers; body?: unknown }): Promise<Response> =>
    new Promise((resolve, reject) => {
      const headers = options.headers instanceof Headers ? Object.fromEntries(options.headers) : options.headers;
      const req = request(url, { method: options.method, headers, ca }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          const status = res.statusCode ?? 500;
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      req.on('error', reject);
      req.end(typeof options.body === 'string' || options.body instanceof URLSearchParams ? String(options.body) : undefined);
    });
}
