/** Configuration: defaults, env and file precedence, every problem reported, docs in sync. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, externalUrl, loadConfig } from '../../src/config/load.js';
import { renderConfigDocs } from '../../src/config/render-docs.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ env: {} });
    expect(config).toMatchObject({ port: 8080, grpcPort: 8081, dataDir: './data', externalDomain: 'localhost', externalSecure: false, http: 'uws', logLevel: 'info' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads a YAML file, and the environment wins over it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-config-'));
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

  it('refuses unknown keys in the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-config-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, '{"prot": 1}');
    expect(() => loadConfig({ env: { TESSERA_CONFIG: file } })).toThrow(/prot: unknown configuration key/);
  });

  it.each([
    [{ externalSecure: false, port: 8080 }, 'http://id.test:8080'],
    [{ externalSecure: true, port: 8080, externalPort: 443 }, 'https://id.test'],
    [{ externalSecure: false, port: 80 }, 'http://id.test'],
  ])('builds the external URL %o', (overrides, expected) => {
    expect(externalUrl(loadConfig({ env: {}, overrides }), 'id.test')).toBe(expected);
  });
});

describe('docs/configuration.md', () => {
  it('is generated from the schema (run `npm run docs:config` after changing it)', () => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    expect(onDisk).toBe(renderConfigDocs());
  });
});
