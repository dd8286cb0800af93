/** The issuer of a request: the request's scheme, domain and port from the Host (or the configured external port). */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { issuerFor } from '../../src/oidc/shared/issuer.js';

const config = (env: Record<string, string> = {}) => loadConfig({ env: { TESSERA_PORT: '8080', ...env } });
const request = (host: string | undefined, scheme: 'http' | 'https' = 'http') => ({ headers: (host === undefined ? {} : { host }) as Record<string, string>, scheme });

describe('issuerFor', () => {
  it.each([
    ['localhost:54321', 'http', {}, 'http://localhost:54321'],
    ['Auth.Example.COM.', 'http', {}, 'http://auth.example.com'],
    ['auth.example.com:80', 'http', {}, 'http://auth.example.com'],
    ['auth.example.com:443', 'https', {}, 'https://auth.example.com'],
    ['auth.example.com:8443', 'https', {}, 'https://auth.example.com:8443'],
    ['[::1]:9000', 'http', {}, 'http://[::1]:9000'],
    ['auth.example.com:8080', 'https', { TESSERA_EXTERNAL_PORT: '443' }, 'https://auth.example.com'],
    ['auth.example.com', 'http', { TESSERA_EXTERNAL_PORT: '9000' }, 'http://auth.example.com:9000'],
  ] as const)('%s over %s %j → %s', (host, scheme, env, issuer) => {
    expect(issuerFor(config(env), request(host, scheme))).toBe(issuer);
  });

  it.each([undefined, '', 'example.com:', 'example.com:abc', 'example.com:0', 'example.com:70000', 'example.com:80:80'])('rejects Host %j', (host) => {
    expect(issuerFor(config(), request(host))).toBeUndefined();
  });
});
