import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOGGER = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'src', 'observability', 'logger.js')).href;
const WORKERS = 10;

/**
 * A process whose worker threads each log two lines with the node's synchronous logger (as
 * src/cluster/worker-main.ts does) and end with process.exit at once, as a failing worker does.
 * With pino's default asynchronous destination the second line waits behind the first one's write
 * and is lost on every run.
 */
const PROGRAM = `
import { Worker } from 'node:worker_threads';
const code = ${JSON.stringify(`
  const { createLogger } = await import(${JSON.stringify(LOGGER)});
  const { workerData } = await import('node:worker_threads');
  const logger = createLogger('info', { synchronous: true }).child({ worker: workerData });
  logger.info('worker starting');
  logger.error('worker failed: the line logged just before exiting');
  process.exit(1);
`)};
for (let i = 0; i < ${WORKERS}; i += 1) {
  await new Promise((resolve) => new Worker(code, { eval: true, workerData: i }).once('exit', resolve));
}
`;

describe("a worker thread's logger", () => {
  it('writes the line logged just before the thread exits', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', PROGRAM], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(run.stderr).toBe('');
    const lines = run.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { msg: string; worker: number; level: string });
    const workersWith = (msg: string): number[] => lines.filter((l) => l.msg === msg).map((l) => l.worker).sort((a, b) => a - b);
    const all = Array.from({ length: WORKERS }, (_, i) => i);
    expect(workersWith('worker starting')).toEqual(all); // the control: the first line of every worker
    expect(workersWith('worker failed: the line logged just before exiting')).toEqual(all);
  });
});
