/**
 * The backup format (docs/operations/backup.md): a directory with `lmdb/data.mdb`, the data
 * directory's `masterkey` and `admin.pat` when present, and `backup.json`, written last
 * (temp file, fsync, rename), listing every file with its size and SHA-256. A directory
 * without a readable manifest, or whose files differ from it, is not a backup: a copy cut
 * short (kill -9, full disk) is refused by restore instead of being used.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const MANIFEST_FILE = 'backup.json';
export const LMDB_FILE = 'lmdb/data.mdb';
/** Files of the data directory a backup carries besides the store, when they exist. */
export const DATA_DIR_FILES = ['masterkey', 'admin.pat'] as const;

export interface BackupFile {
  /** Relative to the backup directory, `/`-separated. */
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface BackupManifest {
  readonly format: 'tessera-backup';
  readonly version: 1;
  readonly createdAt: string;
  readonly store: 'lmdb';
  readonly compact: boolean;
  /** Keys in the copied environment, counted when the copy was checked. */
  readonly entries: number;
  readonly files: readonly BackupFile[];
}

/** Why a directory is not a usable backup. */
export class BackupInvalidError extends Error {}

/** Size and SHA-256 of a file, read as a stream. */
export async function describeFile(dir: string, path: string): Promise<BackupFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(join(dir, path)) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { path, bytes, sha256: hash.digest('hex') };
}

/** Flushes a file (or directory) to disk. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes the manifest atomically: after it, the backup is complete. */
export async function writeManifest(dir: string, manifest: BackupManifest): Promise<void> {
  const temp = join(dir, `${MANIFEST_FILE}.partial`);
  await writeFile(temp, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await syncPath(temp);
  await rename(temp, join(dir, MANIFEST_FILE));
  await syncPath(dir);
}

/** Reads the manifest and checks every file it lists against its size and SHA-256. */
export async function verifyBackup(dir: string): Promise<BackupManifest> {
  const manifest = await readManifest(dir);
  for (const file of manifest.files) {
    if (!existsSync(join(dir, file.path))) throw new BackupInvalidError(`${file.path} is missing`);
    const actual = await describeFile(dir, file.path);
    if (actual.bytes !== file.bytes || actual.sha256 !== file.sha256) throw new BackupInvalidError(`${file.path} does not match the manifest (damaged or changed)`);
  }
  return manifest;
}

async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    const partial = existsSync(join(dir, LMDB_FILE));
    throw new BackupInvalidError(partial ? `no ${MANIFEST_FILE}: the backup did not finish (incomplete copy)` : `no ${MANIFEST_FILE}: not a Tessera backup`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BackupInvalidError(`${MANIFEST_FILE} is not valid JSON`);
  }
  if (!isManifest(value)) throw new BackupInvalidError(`${MANIFEST_FILE} is not a Tessera backup manifest of a known version`);
  if (!value.files.some((f) => f.path === LMDB_FILE)) throw new BackupInvalidError(`${MANIFEST_FILE} lists no ${LMDB_FILE}`);
  return value;
}

function isManifest(value: unknown): value is BackupManifest {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Partial<Record<keyof BackupManifest, unknown>>;
  return m.format === 'tessera-backup' && m.version === 1 && m.store === 'lmdb' && Array.isArray(m.files) && m.files.every(isFileEntry);
}

function isFileEntry(value: unknown): value is BackupFile {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Partial<Record<keyof BackupFile, unknown>>;
  return typeof f.path === 'string' && /^[a-z.]+(\/[a-z.]+)?$/.test(f.path) && !f.path.includes('..') && typeof f.bytes === 'number' && typeof f.sha256 === 'string';
}
