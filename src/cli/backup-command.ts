/**
 * `tessera backup <dir> [--compact]`: a consistent copy of the node's LMDB store, taken while
 * the node runs (docs/operations/backup.md). This process opens the environment read-only
 * beside the node (LMDB is multi-process safe) and copies one snapshot, so the node is neither
 * asked nor paused. Then the data directory's master key and admin token files, a check that
 * the copy opens and reads, and last the manifest: without it the directory is no backup.
 */
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config/schema.js';
import { copyLmdbEnvironment, inspectLmdbCopy } from '../store/lmdb-backup.js';
import { DATA_DIR_FILES, describeFile, LMDB_FILE, syncPath, writeManifest, type BackupFile } from './backup-manifest.js';

export const BACKUP_USAGE = 'tessera backup <dir> [--compact]   (a copy of the LMDB store in TESSERA_DATA_DIR; <dir> must be new or empty)';

class UsageError extends Error {}

/** Returns the exit code: 0 complete, 1 failed (nothing usable left behind), 2 usage. */
export async function runBackupCommand(argv: readonly string[], config: Config): Promise<number> {
  let target: string;
  let compact: boolean;
  try {
    ({ target, compact } = parseBackupArgs(argv, config));
    await prepareTarget(target);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`tessera backup: ${error.message}\nusage: ${BACKUP_USAGE}\n`);
    return 2;
  }
  try {
    const source = resolve(config.dataDir);
    await copyLmdbEnvironment(join(source, 'lmdb'), join(target, 'lmdb'), { compact });
    const copied = await copyDataDirFiles(source, target);
    const { entries } = await inspectLmdbCopy(join(target, 'lmdb'));
    await rm(join(target, 'lmdb', 'lock.mdb'), { force: true }); // made by the check; restore needs none
    const files = [await describeFile(target, LMDB_FILE), ...copied];
    for (const file of files) await syncPath(join(target, file.path));
    await syncPath(join(target, 'lmdb'));
    await writeManifest(target, { format: 'tessera-backup', version: 1, createdAt: new Date().toISOString(), store: 'lmdb', compact, entries, files });
    const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
    process.stdout.write(`backup complete: ${target} (${entries} keys, ${bytes} bytes, ${files.map((f) => f.path).join(', ')})\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`tessera backup: failed, ${target} is not a usable backup: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function parseBackupArgs(argv: readonly string[], config: Config): { target: string; compact: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { compact: { type: 'boolean', default: false } } });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const [dir, ...rest] = parsed.positionals;
  if (dir === undefined || dir === '' || rest.length > 0) throw new UsageError('give exactly one target directory');
  if (config.databaseUrl !== undefined) {
    throw new UsageError('TESSERA_DATABASE_URL is set: back up PostgreSQL with its own tools (pg_dump, base backups); see docs/operations/backup.md');
  }
  if (!existsSync(join(config.dataDir, LMDB_FILE))) throw new UsageError(`no LMDB store at ${join(resolve(config.dataDir), 'lmdb')} (TESSERA_DATA_DIR)`);
  const target = resolve(dir);
  if (target === resolve(config.dataDir) || target.startsWith(`${resolve(config.dataDir)}/`)) throw new UsageError('the target must lie outside the data directory');
  return { target, compact: parsed.values.compact === true };
}

/** The target must be absent or empty; it is created with mode 0700 (it will hold secrets). */
async function prepareTarget(target: string): Promise<void> {
  if (existsSync(target) && (await readdir(target)).length > 0) throw new UsageError(`${target} is not empty`);
  await mkdir(join(target, 'lmdb'), { recursive: true, mode: 0o700 });
}

async function copyDataDirFiles(source: string, target: string): Promise<BackupFile[]> {
  const copied: BackupFile[] = [];
  for (const name of DATA_DIR_FILES) {
    if (!existsSync(join(source, name))) continue;
    await copyFile(join(source, name), join(target, name));
    copied.push(await describeFile(target, name));
  }
  return copied;
}
