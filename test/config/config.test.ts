/** Configuration: defaults, env and file precedence, every problem reported, docs in sync. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, externalUrl, loadConfig } from '../../src/config/load.js';
import { renderConfigDocs } from '../../src/config/render-docs.js';
import { DEFAULT_MAX_WORKERS, workerCount } from '../../src/config/schema.js';
import { suiteTempDirs } from '../temp-dirs.js';

/** A temporary directory, removed after the file's tests. */
const tempDir = suiteTempDirs('tessera-config-');

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ env: {} });
    expect(config).toMatchObject({ port: 8080, grpcPort: 8081, dataDir: './data', externalDomain: 'localhost', externalSecure: false, http: 'uws', logLevel: 'info' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads a YAML file, and the environment wins over it', () => {
    const dir = tempDir();
    const file = join(dir, 'tessera.yaml');
    writeFileSync(file, 'port: 9000\nexternalDomain: id.example.com\ndefaultFeatures: [multitenancy_settings]\n');
    const config = loadConfig({ env: { TESSERA_CONFIG: file, TESSERA_PORT: '9100' } });
    expect(config.port).toBe(9100);
    expect(config.externalDomain).toBe('id.example.com');
    expect(config.defaultFeatures).toEqual(['multitenancy_settings']);
  });

  it('reports every problem at once, naming key and variable', () => {
    let error: unknown;
    try {
      loadConfig({ env: { TESSERA_PORT: '70000', TESSERA_HTTP: 'apache', TESSERA_EXTERNAL_DOMAIN: 'https://x' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('port (TESSERA_PORT)');
    expect(problems).toContain('http (TESSERA_HTTP)');
    expect(problems).toContain('externalDomain (TESSERA_EXTERNAL_DOMAIN)');
  });

  it('reads trusted proxies as IPs and CIDR ranges, and names a bad entry', () => {
    expect(loadConfig({ env: { TESSERA_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8' } }).trustedProxies).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8']);
    expect(loadConfig({ env: {} }).trustedProxies).toEqual([]);
    for (const bad of ['10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/1', '::1/129']) {
      expect(() => loadConfig({ env: { TESSERA_TRUSTED_PROXIES: `127.0.0.1,${bad}` } }), bad).toThrow(/trustedProxies \(TESSERA_TRUSTED_PROXIES\)/);
    }
  });

  it('wants the TLS certificate and key together', () => {
    expect(loadConfig({ env: { TESSERA_TLS_CERT_PATH: '/c.pem', TESSERA_TLS_KEY_PATH: '/k.pem' } })).toMatchObject({ tlsCertPath: '/c.pem', tlsKeyPath: '/k.pem' });
    expect(() => loadConfig({ env: { TESSERA_TLS_CERT_PATH: '/c.pem' } })).toThrow(/tlsKeyPath \(TESSERA_TLS_KEY_PATH\): set TESSERA_TLS_CERT_PATH and TESSERA_TLS_KEY_PATH together/);
    expect(() => loadConfig({ env: { TESSERA_TLS_KEY_PATH: '/k.pem' } })).toThrow(/tlsCertPath \(TESSERA_TLS_CERT_PATH\)/);
  });

  it('keeps rate-limit counts in PostgreSQL only on a PostgreSQL node', () => {
    expect(loadConfig({ env: { TESSERA_DATABASE_URL: 'postgres://db/x', TESSERA_RATE_LIMIT_STORE: 'postgres' } }).rateLimitStore).toBe('postgres');
    expect(loadConfig({ env: { TESSERA_RATE_LIMIT_STORE: 'memory' } }).rateLimitStore).toBe('memory');
    expect(loadConfig({ env: {} }).rateLimitStore).toBeUndefined(); // the node decides by its store
    expect(() => loadConfig({ env: { TESSERA_RATE_LIMIT_STORE: 'postgres' } })).toThrow(/rateLimitStore \(TESSERA_RATE_LIMIT_STORE\): postgres needs TESSERA_DATABASE_URL/);
    expect(() => loadConfig({ env: { TESSERA_RATE_LIMIT_STORE: 'redis' } })).toThrow(/rateLimitStore \(TESSERA_RATE_LIMIT_STORE\)/);
  });

  it('refuses unknown keys in the file', () => {
    const dir = tempDir();
    const file = join(dir, 'c.json');
    writeFileSync(file, '{"prot": 1}');
    expect(() => loadConfig({ env: { TESSERA_CONFIG: file } })).toThrow(/prot: unknown configuration key/);
  });

  it.each([
    [{ port: 8080 }, 'http', 'http://id.test:8080'],
    [{ port: 8080, externalPort: 443 }, 'https', 'https://id.test'],
    [{ port: 80 }, 'http', 'http://id.test'],
    [{ port: 443 }, 'http', 'http://id.test:443'],
  ] as const)('builds the external URL %o over %s', (overrides, scheme, expected) => {
    expect(externalUrl(loadConfig({ env: {}, overrides }), 'id.test', scheme)).toBe(expected);
  });
});

describe('workerCount', () => {
  it.each([
    [{}, 1, 1],
    [{}, 2, 2],
    [{}, 32, DEFAULT_MAX_WORKERS],
    [{ TESSERA_WORKERS: '3' }, 32, 3],
    [{ TESSERA_WORKERS: '1' }, 2, 1],
    [{ TESSERA_WORKERS: '12' }, 2, 12],
  ] as const)('with %o on %i usable cores runs %i workers (unset: the cores, at most the cap)', (env, cores, expected) => {
    expect(workerCount(loadConfig({ env }), cores)).toBe(expected);
  });

  it('leaves TESSERA_WORKERS unset in the loaded configuration (resolved at start, so the docs show no machine-specific default)', () => {
    expect(loadConfig({ env: {} }).workers).toBeUndefined();
  });
});

describe('docs/configuration.md', () => {
  it('is generated from the schema (run `npm run docs:config` after changing it)', () => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    expect(onDisk).toBe(renderConfigDocs());
  });
});
