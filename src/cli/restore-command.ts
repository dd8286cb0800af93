/**
 * `tessera restore <dir>`: puts a backup made by `tessera backup` in place as TESSERA_DATA_DIR
 * (docs/operations/backup.md). The backup is verified first (manifest, sizes, SHA-256), the
 * data directory must be absent or empty, and the files are assembled in a sibling directory
 * that is renamed into place at the end: an interrupted restore leaves no half data directory.
 */
import { copyFile, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { BackupInvalidError, syncPath, verifyBackup, type BackupManifest } from './backup-manifest.js';

export const RESTORE_USAGE = 'tessera restore <dir>   (into TESSERA_DATA_DIR, which must be absent or empty)';

/** Returns the exit code: 0 restored, 1 the backup is unusable or the data directory not empty, 2 usage. */
export async function runRestoreCommand(argv: readonly string[], config: Config): Promise<number> {
  const [dir, ...rest] = argv;
  if (dir === undefined || dir === '' || rest.length > 0) return usage('give exactly one backup directory');
  if (config.databaseUrl !== undefined) {
    return usage('TESSERA_DATABASE_URL is set: restore into an LMDB data directory, then `tessera copy-store` to PostgreSQL (docs/operations/backup.md)');
  }
  const source = resolve(dir);
  const dataDir = resolve(config.dataDir);
  let manifest: BackupManifest;
  try {
    manifest = await verifyBackup(source);
    if (existsSync(dataDir) && (await readdir(dataDir)).length > 0) {
      process.stderr.write(`tessera restore: ${dataDir} is not empty; restore only into a new or empty data directory\n`);
      return 1;
    }
  } catch (error) {
    if (!(error instanceof BackupInvalidError)) throw error;
    process.stderr.write(`tessera restore: ${source} is not a usable backup: ${error.message}\n`);
    return 1;
  }
  await assemble(source, dataDir, manifest);
  process.stdout.write(`restored ${source} (${manifest.entries} keys, taken ${manifest.createdAt}) into ${dataDir}\n`);
  if (!manifest.files.some((f) => f.path === 'masterkey') && config.masterKey === undefined) {
    process.stderr.write('tessera restore: note: the backup holds no masterkey file; start the node with the TESSERA_MASTERKEY it ran with, or sealed secrets stay unreadable\n');
  }
  return 0;
}

function usage(problem: string): number {
  process.stderr.write(`tessera restore: ${problem}\nusage: ${RESTORE_USAGE}\n`);
  return 2;
}

/** Copies into `<dataDir>.restoring-<pid>`, flushes, then renames it to the data directory. */
async function assemble(source: string, dataDir: string, manifest: BackupManifest): Promise<void> {
  const staging = join(dirname(dataDir), `.${basename(dataDir)}.restoring-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, 'lmdb'), { recursive: true, mode: 0o700 });
  try {
    for (const file of manifest.files) {
      await copyFile(join(source, file.path), join(staging, file.path));
      await syncPath(join(staging, file.path));
    }
    await syncPath(join(staging, 'lmdb'));
    await syncPath(staging);
    if (existsSync(dataDir)) await rmdir(dataDir); // empty, checked above
    await rename(staging, dataDir);
    await syncPath(dirname(dataDir));
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
