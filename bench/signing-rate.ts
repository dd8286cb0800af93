/**
 * The raw signing rate of this machine (benchmarking.md "What the machine can do"): RS256 / ES256 /
 * EdDSA signatures per second of one thread, measured in a child process (signing-worker.ts) so
 * the runner's own load does not disturb it, optionally pinned to a CPU with taskset. Token
 * scenarios report their req/s beside this figure, measured in the same run.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type SigningAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

export interface SigningRateOptions {
  readonly algorithm: SigningAlgorithm;
  /** Measured seconds (after a short warm-up). */
  readonly seconds: number;
  /** Pin the child to this CPU with taskset (the server's core, for per-core ratios). */
  readonly cpu?: number | undefined;
}

export interface SigningRate {
  readonly algorithm: SigningAlgorithm;
  readonly signatures: number;
  readonly seconds: number;
  /** Whole compact JWS per second on one thread. */
  readonly perSecond: number;
  /** CPU time of the signing process during the measured loop. */
  readonly cpuSeconds: number;
  /** Whole compact JWS per CPU-second: stable when other processes share the core. */
  readonly perCpuSecond: number;
  readonly cpu: number | undefined;
}

const WORKER = fileURLToPath(new URL('./signing-worker.js', import.meta.url));

/** Runs the worker and resolves with its measurement; rejects when it fails. */
export function measureSigningRate(options: SigningRateOptions): Promise<SigningRate> {
  const args = [WORKER, options.algorithm, String(options.seconds)];
  const [command, commandArgs] = options.cpu === undefined ? [process.execPath, args] : ['taskset', ['-c', String(options.cpu), process.execPath, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`signing-rate ${options.algorithm} exited ${code}: ${stderr.trim()}`));
        return;
      }
      try {
        const result = JSON.parse(stdout.trim()) as Omit<SigningRate, 'cpu'>;
        resolve({ ...result, cpu: options.cpu });
      } catch {
        reject(new Error(`signing-rate ${options.algorithm}: unreadable output ${JSON.stringify(stdout)}`));
      }
    });
  });
}
