/**
 * `tessera export` / `tessera import` against a running node (docs/api/export-import.md):
 * the token from the data directory's admin.pat or --token, the instance from --host, plain
 * progress lines without a terminal, a redrawn bar on one (util-linux `script` gives the CLI a
 * pseudo-terminal), counts on stdout, exit codes.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itIfMet, meet, SCRIPT_PTY } from '../requirements.js';
import { api, runCli, startTestNode, type TestNode } from './harness.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';

const scriptPty = await meet(SCRIPT_PTY);
const R = '/resources/v3alpha';
let node: TestNode;
let secondHost: string;
let secondToken: string;
let orgId: string;
let userId: string;

beforeAll(async () => {
  const ops = await createSystemUserKey('ops');
  node = await startTestNode({ env: { TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]), TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } });
  const instance = await systemApi(node, ops)('POST', `${R}/instances`, { name: 'Cli Target', domain: 'cli-target.test', admin: { username: 'cli-admin' } });
  expect(instance.status, JSON.stringify(instance.body)).toBe(201);
  secondHost = `cli-target.test:${node.httpPort}`;
  secondToken = instance.body.adminToken;
  const call = api(node);
  orgId = (await call('POST', `${R}/organizations`, { name: 'Cli Org' })).body.details.id;
  const user = await call('POST', `${R}/users?ctx.orgId=${orgId}`, {
    human: { username: 'cli-user', profile: { givenName: 'C', familyName: 'L' }, email: { address: 'cli@example.com' }, password: 'Secr3tPassword' },
  });
  expect(user.status, JSON.stringify(user.body)).toBe(201);
  userId = user.body.details.id;
});

afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('tessera export / import', () => {
  it('exports with the data directory token and imports into another instance, twice', async () => {
    const file = join(node.dataDir, 'cli-export.json');
    const env = { TESSERA_DATA_DIR: node.dataDir };
    const exported = await runCli(['export', '--out', file, '--org', orgId, '--with-passwords', '--url', node.baseUrl], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('export: wrote');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.orgs.map((o: { orgId: string }) => o.orgId)).toEqual([orgId]);
    expect(JSON.stringify(doc)).toContain('hashedPassword');

    const args = ['import', '--in', file, '--url', node.baseUrl, '--host', secondHost, '--token', secondToken];
    const imported = await runCli(args, env);
    expect(imported.code, imported.stderr + imported.stdout).toBe(0);
    expect(imported.stdout).toMatch(/human_user\s+created 1 {2}skipped 0 {2}failed 0/);
    const onSecond = await api(node, secondToken)('GET', `${R}/users/${userId}`, undefined, { host: secondHost });
    expect(onSecond.status).toBe(200);

    const again = await runCli(args, env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/human_user\s+created 0 {2}skipped 1 {2}failed 0/);
  });

  it('exits 1 with the server message on a refused call and 2 on bad usage', async () => {
    const env = { TESSERA_DATA_DIR: node.dataDir };
    const refused = await runCli(['import', '--in', join(node.dataDir, 'admin.pat'), '--url', node.baseUrl, '--token', 'bogus'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('HTTP 401');
    // A token may start with a dash (base64url): given as the next argument it is still the token, not an option.
    const dashed = await runCli(['import', '--in', join(node.dataDir, 'admin.pat'), '--url', node.baseUrl, '--token', '-bogus'], env);
    expect(dashed.stderr).not.toContain('ambiguous');
    expect(dashed.code).toBe(1);
    expect(dashed.stderr).toContain('HTTP 401');
    expect((await runCli(['export', '--url', node.baseUrl], env)).code).toBe(2);
    expect((await runCli(['import', '--nope'], env)).code).toBe(2);
  });

  itIfMet(scriptPty, 'draws a progress bar on stderr when it is a terminal', async () => {
    const file = join(node.dataDir, 'cli-tty-export.json');
    const main = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
    const command = [process.execPath, main, 'export', '--out', file, '--org', orgId, '--url', node.baseUrl].map((a) => `'${a}'`).join(' ');
    const child = spawn('/usr/bin/script', ['-qefc', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', TESSERA_DATA_DIR: node.dataDir, TERM: 'xterm' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve)); // the output is complete once the pipes close
    expect(code, output).toBe(0);
    expect(output).toMatch(/\r\x1b\[2Kexport \[ *███ *\] \d+\.\ds /);
    expect(output).toMatch(/\r\x1b\[2Kexport: wrote .* to /);
    expect(JSON.parse(readFileSync(file, 'utf8')).orgs).toHaveLength(1);
  });
});
