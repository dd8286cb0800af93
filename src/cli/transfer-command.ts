/**
 * `tessera export` / `tessera import`: clients of a running node's `/admin/v1/export` and
 * `/admin/v1/import` (docs/api/export-import.md). The token comes from `--token`, else
 * `TESSERA_TOKEN`, else the data directory's `admin.pat`; the node from `--url` (default
 * `http://127.0.0.1:<TESSERA_PORT>`), the instance from `--host` (default: the URL's host).
 * On a terminal a progress line is redrawn (bytes, elapsed time); otherwise plain lines.
 */
import { createWriteStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config/schema.js';

export const TRANSFER_USAGE =
  'tessera export --out FILE [--org ID]... [--exclude-org ID]... [--with-passwords] [--timeout 10m] [--url URL] [--host HOST] [--token TOKEN]\n' +
  'tessera import --in FILE [--timeout 30m] [--url URL] [--host HOST] [--token TOKEN]';

const common = { url: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, timeout: { type: 'string' } } as const;
const EXPORT_OPTIONS = { ...common, out: { type: 'string' }, org: { type: 'string', multiple: true }, 'exclude-org': { type: 'string', multiple: true }, 'with-passwords': { type: 'boolean' } } as const;
const IMPORT_OPTIONS = { ...common, in: { type: 'string' } } as const;

/**
 * `--token TOKEN` as `--token=TOKEN`: parseArgs refuses a separate value that starts with a dash
 * as ambiguous, and a token is random base64url, so one in 64 starts with `-`. The other options
 * keep parseArgs' check (a missing value there is a usage error, not a value).
 */
function joinToken(argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (argv[i] === '--token' && next !== undefined) {
      args.push(`--token=${next}`);
      i += 1;
    } else args.push(argv[i] as string);
  }
  return args;
}

/** Runs `export` or `import`; returns the exit code (2: usage, 1: failed or with errors). */
export async function runTransferCommand(command: 'export' | 'import', argv: readonly string[], config: Config): Promise<number> {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values =
      command === 'export'
        ? parseArgs({ args: joinToken(argv), options: EXPORT_OPTIONS }).values
        : parseArgs({ args: joinToken(argv), options: IMPORT_OPTIONS }).values;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\nusage:\n${TRANSFER_USAGE}\n`);
    return 2;
  }
  const file = command === 'export' ? values.out : values.in;
  if (typeof file !== 'string' || file === '') {
    process.stderr.write(`${command === 'export' ? '--out' : '--in'} is required\nusage:\n${TRANSFER_USAGE}\n`);
    return 2;
  }
  const url = typeof values.url === 'string' ? values.url : `http://127.0.0.1:${config.port}`;
  const target = { url, host: typeof values.host === 'string' ? values.host : new URL(url).host, token: await tokenOf(values.token, config) };
  const progress = createProgress(command);
  try {
    return command === 'export'
      ? await runExport(target, file, values, progress)
      : await runImport(target, file, typeof values.timeout === 'string' ? values.timeout : '30m', progress);
  } finally {
    progress.stop();
  }
}

interface Target {
  readonly url: string;
  readonly host: string;
  readonly token: string;
}

async function tokenOf(flag: unknown, config: Config): Promise<string> {
  if (typeof flag === 'string' && flag !== '') return flag;
  const env = process.env['TESSERA_TOKEN'];
  if (env !== undefined && env !== '') return env;
  return (await readFile(join(config.dataDir, 'admin.pat'), 'utf8').catch(() => '')).trim();
}

/** POSTs JSON with node:http(s) (fetch would not send our own Host header). */
function post(target: Target, path: string, body: unknown): Promise<IncomingMessage> {
  const url = new URL(path, target.url);
  const payload = JSON.stringify(body);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), host: target.host },
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end(payload);
  });
}

async function readAll(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function runExport(target: Target, file: string, values: Record<string, unknown>, progress: Progress): Promise<number> {
  const body = {
    org_ids: values.org ?? [],
    excluded_org_ids: values['exclude-org'] ?? [],
    with_passwords: values['with-passwords'] === true,
    timeout: typeof values.timeout === 'string' ? values.timeout : '10m',
    response_output: true,
  };
  progress.update('waiting for the node to build the export');
  const response = await post(target, '/admin/v1/export', body);
  if (response.statusCode !== 200) return failed(response, progress);
  const out = createWriteStream(file, { mode: 0o600 });
  let bytes = 0;
  for await (const chunk of response) {
    bytes += (chunk as Buffer).byteLength;
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    progress.update(`received ${formatBytes(bytes)}`);
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  progress.done(`wrote ${formatBytes(bytes)} to ${file}`);
  return 0;
}

async function runImport(target: Target, file: string, timeout: string, progress: Progress): Promise<number> {
  const document = await readFile(file, 'utf8');
  progress.update(`importing ${formatBytes(Buffer.byteLength(document))}`);
  const response = await post(target, '/admin/v1/import', { timeout, data_orgsv1: document });
  if (response.statusCode !== 200) return failed(response, progress);
  const result = JSON.parse(await readAll(response)) as { errors: { type: string; id: string; message: string }[]; counts: Record<string, { created: number; skipped: number; failed: number }> };
  progress.done('import finished');
  for (const [type, c] of Object.entries(result.counts)) process.stdout.write(`${type.padEnd(20)} created ${c.created}  skipped ${c.skipped}  failed ${c.failed}\n`);
  for (const e of result.errors) process.stdout.write(`error ${e.type} ${e.id}: ${e.message}\n`);
  return result.errors.length === 0 ? 0 : 1;
}

async function failed(response: IncomingMessage, progress: Progress): Promise<number> {
  const text = await readAll(response);
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    // not JSON: show as is
  }
  progress.done(`failed: HTTP ${response.statusCode ?? 0}: ${message}`);
  return 1;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

interface Progress {
  update(text: string): void;
  done(text: string): void;
  stop(): void;
}

/** A redrawn line with a moving bar and the elapsed time on a TTY; plain lines (first per text) otherwise. */
function createProgress(label: string): Progress {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  let current = '';
  let frame = 0;
  const draw = () => {
    const width = 20;
    const pos = frame++ % (2 * width - 2);
    const at = pos < width ? pos : 2 * width - 2 - pos;
    const bar = `${' '.repeat(at)}███${' '.repeat(width - at)}`.slice(0, width + 3);
    process.stderr.write(`\r\x1b[2K${label} [${bar}] ${((Date.now() - started) / 1000).toFixed(1)}s ${current}`);
  };
  const timer = tty ? setInterval(draw, 100) : undefined;
  if (tty) draw(); // at once: a quick call still shows the bar before its result line
  let lastPlain = '';
  return {
    update(text) {
      current = text;
      if (!tty && !text.startsWith('received') && text !== lastPlain) {
        process.stderr.write(`${label}: ${text}\n`);
        lastPlain = text;
      }
    },
    done(text) {
      if (timer !== undefined) clearInterval(timer);
      process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${label}: ${text} (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
