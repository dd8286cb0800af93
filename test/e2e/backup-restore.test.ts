/**
 * `tessera backup` / `tessera restore` with the real CLI against a running LMDB node
 * (docs/operations/backup.md): data written through the API while the backup runs comes back
 * whole in a node started on the restored directory (same signing keys, so the master key came
 * along), from a page copy and from a compact one; a backup killed with SIGKILL mid-copy leaves
 * the source node serving unchanged data and a directory restore refuses; a damaged backup, a
 * non-empty data directory and a non-empty target are refused.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runCli, startTestNode, type TestNode } from './harness.js';
import { basic, createMachineClient, postForm, type MachineClient } from './oidc.fixture.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
const ORGS = '/resources/v3alpha/organizations';

describe('backup and restore of a running LMDB node', () => {
  let source: TestNode;
  let bot: MachineClient;
  const scratch = mkdtempSync(join(tmpdir(), 'tessera-backup-'));
  const others: TestNode[] = [];
  const dir = (name: string) => join(scratch, name);

  beforeAll(async () => {
    source = await startTestNode();
    bot = await createMachineClient(source, 'backup-bot', 'JWT');
  });
  afterAll(async () => {
    for (const node of others) await node.stop();
    await source.stop();
    source.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  // `--compact` writes every entry again in key order instead of copying pages (src/store/lmdb-backup.ts).
  it.each([
    { variant: 'page copy', flags: [] as string[] },
    { variant: '--compact', flags: ['--compact'] },
  ])('round trip ($variant): written through the API while the backup runs, restored, read back by a new node', { timeout: 180_000 }, async ({ flags }) => {
    const name = flags.length === 0 ? 'full' : 'compact';
    const call = api(source);
    const before: string[] = [];
    for (const org of ['One', 'Two', 'Three']) before.push(await createOrg(call, `Before ${org} (${name})`));

    // Writes keep going while the backup runs; each is atomic, so each is in the copy whole or not at all.
    let writing = true;
    const during: string[] = [];
    const writer = (async () => {
      for (let i = 0; writing; i++) during.push(await createOrg(call, `During ${i} (${name})`));
    })();
    const backup = await runCli(['backup', dir(name), ...flags], { TESSERA_DATA_DIR: source.dataDir });
    writing = false;
    await writer;
    expect(during.length).toBeGreaterThan(0);
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
    expect(backup.stdout).toMatch(/^backup complete: .* \(\d+ keys, \d+ bytes, lmdb\/data\.mdb, masterkey, admin\.pat\)\n$/);

    const restored = await runCli(['restore', dir(name)], { TESSERA_DATA_DIR: dir(`restored-${name}`) });
    expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: '' });
    const copy = await startTestNode({ dataDir: dir(`restored-${name}`) });
    others.push(copy);
    expect(copy.adminToken).toBe(source.adminToken);

    const fromCopy = await listOrgs(copy);
    const fromSource = await listOrgs(source);
    for (const id of before) expect(fromCopy.get(id)?.organization.name).toMatch(/^Before /);
    for (const [id, org] of fromCopy) {
      expect(fromSource.has(id)).toBe(true); // nothing but what the source has
      expect((await api(copy)('GET', `${ORGS}/${id}`)).body.organization).toEqual(org); // rows whole, as in the search
    }

    // The signing keys came along and can be unsealed: a token from the copy verifies with the source's key set.
    const token = await postForm(copy, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'profile' }, basic(bot.clientId, bot.secret));
    expect(token.status).toBe(200);
    const verified = await jwtVerify(String(token.body.access_token), createRemoteJWKSet(new URL(`${source.baseUrl}/oauth/v2/keys`)));
    expect(verified.payload.sub).toBe(bot.userId);
  });

  it('SIGKILL during a backup: the source keeps serving unchanged data, restore refuses the partial copy', { timeout: 180_000 }, async () => {
    const call = api(source);
    for (let i = 0; i < 40; i++) await createOrg(call, `Bulk ${i}`);
    const snapshot = await listOrgs(source);

    let partial: string | undefined;
    for (let attempt = 0; attempt < 5 && partial === undefined; attempt++) {
      const target = dir(`killed-${attempt}`);
      if (await killWhenCopyStarts(target, source.dataDir)) partial = target;
    }
    expect(partial, 'no attempt was caught between the copy starting and the manifest').toBeDefined();
    expect(existsSync(join(partial!, 'lmdb', 'data.mdb'))).toBe(true);
    expect(existsSync(join(partial!, 'backup.json'))).toBe(false);

    expect(await listOrgs(source)).toEqual(snapshot);
    const after = await createOrg(call, 'After Kill');
    expect((await call('GET', `${ORGS}/${after}`)).status).toBe(200);

    const refused = await runCli(['restore', partial!], { TESSERA_DATA_DIR: dir('from-partial') });
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('the backup did not finish') });
    expect(existsSync(dir('from-partial'))).toBe(false);

    // A backup right after the killed one works (the dead reader left nothing locked).
    const next = await runCli(['backup', dir('after-kill')], { TESSERA_DATA_DIR: source.dataDir });
    expect(next.code).toBe(0);
  });

  it('refuses a damaged backup, a non-empty data directory and a non-empty target', { timeout: 120_000 }, async () => {
    const made = await runCli(['backup', dir('intact')], { TESSERA_DATA_DIR: source.dataDir });
    expect(made.code).toBe(0);

    const intoUsed = await runCli(['restore', dir('intact')], { TESSERA_DATA_DIR: source.dataDir });
    expect({ code: intoUsed.code, stderr: intoUsed.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('is not empty') });
    const overBackup = await runCli(['backup', dir('intact')], { TESSERA_DATA_DIR: source.dataDir });
    expect({ code: overBackup.code, stderr: overBackup.stderr }).toMatchObject({ code: 2, stderr: expect.stringContaining('is not empty') });

    appendFileSync(join(dir('intact'), 'lmdb', 'data.mdb'), Buffer.from([0]));
    const damaged = await runCli(['restore', dir('intact')], { TESSERA_DATA_DIR: dir('from-damaged') });
    expect({ code: damaged.code, stderr: damaged.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('lmdb/data.mdb does not match the manifest') });
    expect(existsSync(dir('from-damaged'))).toBe(false);
    expect(readFileSync(join(dir('intact'), 'backup.json'), 'utf8')).toContain('"tessera-backup"');
  });
});

async function createOrg(call: ReturnType<typeof api>, name: string): Promise<string> {
  const created = await call('POST', ORGS, { name });
  if (created.status !== 201) throw new Error(`org ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  return String(created.body.details.id);
}

/** Every organization by id, as the search returns it. */
async function listOrgs(node: TestNode): Promise<Map<string, Record<string, any>>> {
  const found = await api(node)('POST', `${ORGS}/_search?query.limit=1000`, []);
  expect(found.status).toBe(200);
  return new Map((found.body.result as Record<string, any>[]).map((o) => [String(o.details.id), o]));
}

/**
 * Starts `tessera backup <target>` and SIGKILLs it as soon as the copy's data.mdb appears;
 * true when the kill came before the manifest (the backup was cut short).
 */
async function killWhenCopyStarts(target: string, dataDir: string): Promise<boolean> {
  const child = spawn(process.execPath, [MAIN, 'backup', target], { env: { PATH: process.env.PATH ?? '', TESSERA_DATA_DIR: dataDir }, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const copyFile = join(target, 'lmdb', 'data.mdb');
  while (child.exitCode === null && !existsSync(copyFile)) await new Promise((resolve) => setImmediate(resolve));
  child.kill('SIGKILL');
  await exited;
  return existsSync(copyFile) && !(await readdir(target)).includes('backup.json');
}
