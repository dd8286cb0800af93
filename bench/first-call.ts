/**
 * What the first API calls of a fresh node cost (#13: the API's transports load on first use):
 * starts `node <root>/dist/src/cli/main.js start` on an empty data directory (one thread), and
 * once it listens makes, in order, the same read (SearchOrganizations) twice over JSON/HTTP, then
 * twice over Connect on the main port, then twice over gRPC on the gRPC port (a new HTTP/2
 * connection: its set-up is in the first gRPC figure). Prints each call's wall time and the
 * node's CPU time (utime + stime from /proc/<pid>/stat) over the call, which a loaded machine
 * distorts less than wall time. Run after `npm run build`:
 *   node dist/bench/first-call.js [root ...]   (FIRST_CALL_RUNS=2: fresh nodes per root, alternating)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { PlatformOrganizations } from '../src/gen/platform/resources/org/v3alpha/org_service_pb.js';

interface Started {
  readonly child: ChildProcess;
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly grpcUrl: string;
  readonly token: string;
}

const TICK_MS = 10; // USER_HZ 100

async function start(root: string): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-first-call-'));
  const child = spawn(process.execPath, [join(root, 'dist', 'src', 'cli', 'main.js'), 'start'], {
    env: { PATH: process.env.PATH ?? '', TESSERA_DATA_DIR: dataDir, TESSERA_PORT: '0', TESSERA_GRPC_PORT: '0', TESSERA_HOST: '127.0.0.1', TESSERA_WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const listening = await new Promise<{ httpPort: number; grpcPort: number }>((done, fail) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; httpPort?: number; grpcPort?: number };
        if (entry.msg === 'listening') done({ httpPort: Number(entry.httpPort), grpcPort: Number(entry.grpcPort) });
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => fail(new Error(`node exited with ${code} before listening`)));
  });
  return {
    child,
    dataDir,
    baseUrl: `http://localhost:${listening.httpPort}`,
    grpcUrl: `http://localhost:${listening.grpcPort}`,
    token: readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim(),
  };
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
}

async function timed(pid: number, call: () => Promise<void>): Promise<string> {
  const cpu = cpuMs(pid);
  const t0 = performance.now();
  await call();
  return `${(performance.now() - t0).toFixed(1)} ms (cpu ${cpuMs(pid) - cpu} ms)`;
}

async function measure(root: string): Promise<void> {
  const node = await start(root);
  const pid = node.child.pid!;
  const auth = { authorization: `Bearer ${node.token}` };
  const json = async () => {
    const reply = await fetch(`${node.baseUrl}/resources/v3alpha/organizations/_search`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '[]' });
    if (reply.status !== 200) throw new Error(`JSON search: ${reply.status}`);
    await reply.arrayBuffer();
  };
  const connect = async () => {
    const reply = await fetch(`${node.baseUrl}/${PlatformOrganizations.typeName}/SearchOrganizations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    if (reply.status !== 200) throw new Error(`Connect search: ${reply.status}`);
    await reply.arrayBuffer();
  };
  const client = createClient(PlatformOrganizations, createGrpcTransport({ baseUrl: node.grpcUrl }));
  const grpc = async () => void (await client.searchOrganizations({}, { headers: auth }));
  try {
    const rows = [`json ${await timed(pid, json)} then ${await timed(pid, json)}`, `connect ${await timed(pid, connect)} then ${await timed(pid, connect)}`, `grpc ${await timed(pid, grpc)} then ${await timed(pid, grpc)}`];
    console.log(`${root}: ${rows.join('; ')}`);
  } finally {
    node.child.kill('SIGTERM');
    await new Promise((done) => node.child.once('exit', done));
    rmSync(node.dataDir, { recursive: true, force: true });
  }
}

const roots = process.argv.length > 2 ? process.argv.slice(2).map((r) => resolve(r)) : [resolve(import.meta.dirname, '..', '..')];
const runs = Number(process.env.FIRST_CALL_RUNS ?? 2);
for (let run = 0; run < runs; run++) for (const root of roots) await measure(root);
