/**
 * The master key: TESSERA_MASTERKEY when set, otherwise <dataDir>/masterkey, generated on
 * first use with mode 0600 and a warning (fine for development; production sets the variable
 * from a secret store so the key does not live next to the data it protects).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMasterKey, parseMasterKey } from '../crypto/secret-sealer.js';
import type { Config } from '../config/schema.js';

export interface MasterKeySource {
  readonly key: Buffer;
  /** Where it came from, for the log line (never the key). */
  readonly origin: 'environment' | 'file' | 'generated';
  readonly path?: string;
}

export function loadMasterKey(config: Config): MasterKeySource {
  if (config.masterKey !== undefined) return { key: parseMasterKey(config.masterKey), origin: 'environment' };
  const path = join(config.dataDir, 'masterkey');
  if (existsSync(path)) return { key: parseMasterKey(readFileSync(path, 'utf8').trim()), origin: 'file', path };
  const text = generateMasterKey();
  writeFileSync(path, `${text}\n`, { mode: 0o600, flag: 'wx' });
  return { key: parseMasterKey(text), origin: 'generated', path };
}
