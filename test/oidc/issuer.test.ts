/** The issuer of a request: scheme from config, domain and port from the Host (or the configured external port). */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { issuerFor } from '../../src/oidc/shared/issuer.js';

const config = (env: Record<string, string> = {}) => loadConfig({ env: { TESSERA_PORT: '8080', ...env } });

describe('issuerFor', () => {
  it.each([
    ['localhost:54321', {}, 'http://localhost:54321'],
    ['Auth.Example.COM.', {}, 'http://auth.example.com'],
    ['auth.example.com:80', {}, 'http://auth.example.com'],
    ['auth.example.com:443', { TESSERA_EXTERNAL_SECURE: 'true' }, 'https://auth.example.com'],
    ['auth.example.com:8443', { TESSERA_EXTERNAL_SECURE: 'true' }, 'https://auth.example.com:8443'],
    ['[::1]:9000', {}, 'http://[::1]:9000'],
    ['auth.example.com:8080', { TESSERA_EXTERNAL_SECURE: 'true', TESSERA_EXTERNAL_PORT: '443' }, 'https://auth.example.com'],
    ['auth.example.com', { TESSERA_EXTERNAL_PORT: '9000' }, 'http://auth.example.com:9000'],
  ])('%s %j → %s', (host, env, issuer) => {
    expect(issuerFor(config(env), host)).toBe(issuer);
  });

  it.each([undefined, '', 'example.com:', 'example.com:abc', 'example.com:0', 'example.com:70000', 'example.com:80:80'])('rejects Host %j', (host) => {
    expect(issuerFor(config(), host)).toBeUndefined();
  });
});
