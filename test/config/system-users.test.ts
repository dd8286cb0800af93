/** The systemUsers configuration key: file and env forms, key checks, every problem named. */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';

const pem = (type: 'ec' | 'ed25519' | 'rsa', options: object = {}) =>
  generateKeyPairSync(type as 'ec', { namedCurve: 'prime256v1', ...options } as { namedCurve: string }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig({ env });
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.join('\n');
    throw e;
  }
  return '';
}

describe('systemUsers', () => {
  it('is empty by default', () => {
    expect(loadConfig({ env: {} }).systemUsers).toEqual({});
  });

  it('reads the env JSON form, defaulting the roles to SYSTEM_OWNER', () => {
    const key = pem('ec');
    const config = loadConfig({ env: { TESSERA_SYSTEM_USERS: JSON.stringify({ ops: { publicKey: key }, audit: { publicKey: key, roles: ['SYSTEM_OWNER_VIEWER'] } }) } });
    expect(config.systemUsers).toEqual({ ops: { publicKey: key, roles: ['SYSTEM_OWNER'] }, audit: { publicKey: key, roles: ['SYSTEM_OWNER_VIEWER'] } });
  });

  it('reads publicKeyPath in the file form', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-sysusers-'));
    try {
      const key = pem('ed25519');
      writeFileSync(join(dir, 'ops.pem'), key);
      writeFileSync(join(dir, 'tessera.yaml'), `systemUsers:\n  ops:\n    publicKeyPath: ${join(dir, 'ops.pem')}\n`);
      expect(loadConfig({ env: { TESSERA_CONFIG: join(dir, 'tessera.yaml') } }).systemUsers.ops?.publicKey).toBe(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports every bad user at once, naming the key, variable and user', () => {
    const problems = problemsOf({
      TESSERA_SYSTEM_USERS: JSON.stringify({
        nokey: {},
        both: { publicKey: pem('ec'), publicKeyPath: '/x' },
        missing: { publicKeyPath: '/nonexistent/key.pem' },
        garbage: { publicKey: 'not a key' },
        curve: { publicKey: pem('ec', { namedCurve: 'secp384r1' }) },
        role: { publicKey: pem('ec'), roles: ['IAM_OWNER'] },
        'bad name': { publicKey: pem('ec') },
      }),
    });
    for (const user of ['nokey', 'both', 'missing', 'garbage', 'curve', 'role', 'bad name']) {
      expect(problems).toContain(`systemUsers (TESSERA_SYSTEM_USERS): user "${user}"`);
    }
    expect(problemsOf({ TESSERA_SYSTEM_USERS: '{not json' })).toContain('systemUsers (TESSERA_SYSTEM_USERS)');
  });
});
