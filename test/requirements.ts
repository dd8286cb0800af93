/**
 * What a suite needs from the machine (PostgreSQL, Chromium, a command) and what happens when it
 * is missing: under CI=true the suite FAILS with the reason, so a CI run can never pass by
 * quietly skipping; elsewhere it is skipped with the reason in its title and on stderr.
 *
 *   const postgres = await meet(POSTGRES);
 *   describeIfMet(postgres, 'postgres store', () => { ... });
 *
 * `meet` probes once per test file (module); `evaluate` is the pure part, tested with a fake env.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import postgres from 'postgres';
import { describe, it } from 'vitest';

type Env = Readonly<Record<string, string | undefined>>;

export interface Requirement {
  /** What is needed, for titles and messages ("PostgreSQL", "Chromium"). */
  readonly name: string;
  /** Undefined when the requirement is met here, else why not. */
  probe(env: Env): Promise<string | undefined>;
}

/** The outcome for one suite: run it, skip it (with the reason), or fail it (CI, with the reason). */
export type Verdict =
  | { readonly requirement: string; readonly outcome: 'run' }
  | { readonly requirement: string; readonly outcome: 'skip' | 'fail'; readonly reason: string };

/** PostgreSQL at TESSERA_TEST_DATABASE_URL answers `SELECT 1` within a short connect timeout. */
export const POSTGRES: Requirement = {
  name: 'PostgreSQL',
  async probe(env) {
    const url = env.TESSERA_TEST_DATABASE_URL;
    if (url === undefined || url === '') return 'TESSERA_TEST_DATABASE_URL is not set';
    const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => undefined });
    try {
      await sql.unsafe('SELECT 1');
      return undefined;
    } catch (err) {
      return `PostgreSQL at TESSERA_TEST_DATABASE_URL is unreachable (${err instanceof Error ? err.message : String(err)})`;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => undefined);
    }
  },
};

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Debian's Chromium (scripts/install-system-deps.sh installs it): the binary is there and playwright-core launches it headless. */
export const CHROMIUM: Requirement = {
  name: 'Chromium',
  async probe() {
    if (!existsSync(CHROMIUM_PATH)) return `${CHROMIUM_PATH} is missing (run scripts/install-system-deps.sh as root)`;
    const { chromium } = await import('playwright-core');
    try {
      const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, timeout: 30_000, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
      await browser.close();
      return undefined;
    } catch (err) {
      return `${CHROMIUM_PATH} does not launch: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
    }
  },
};

/** The openssl command line, for throwaway certificates (scripts/install-system-deps.sh). */
export const OPENSSL: Requirement = executable('openssl', 'openssl', ['version'], 'scripts/install-system-deps.sh installs it');

/** util-linux's script(1), to run a command on a pseudo-terminal. */
export const SCRIPT_PTY: Requirement = executable('script(1)', '/usr/bin/script', ['--version'], 'it comes with util-linux');

/** A program that exists (absolute paths are checked first) and runs `args` with exit status 0 within 15 s. */
export function executable(name: string, command: string, args: readonly string[], hint: string): Requirement {
  return {
    name,
    async probe() {
      if (command.startsWith('/') && !existsSync(command)) return `${command} is missing (${hint})`;
      const result = spawnSync(command, args, { timeout: 15_000, stdio: ['ignore', 'ignore', 'pipe'] });
      if (result.error !== undefined) return `${command} does not start: ${result.error.message} (${hint})`;
      if (result.status !== 0) return `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}: ${result.stderr.toString().trim().slice(0, 200)}`;
      return undefined;
    },
  };
}

/** Probes the requirement under `env` and decides: run, skip (elsewhere) or fail (CI=true). */
export async function evaluate(requirement: Requirement, env: Env): Promise<Verdict> {
  const reason = await requirement.probe(env);
  if (reason === undefined) return { requirement: requirement.name, outcome: 'run' };
  return { requirement: requirement.name, outcome: env.CI === 'true' ? 'fail' : 'skip', reason };
}

/** For a suite that needs nothing beyond Node. */
export const UNCONDITIONAL: Verdict = { requirement: 'nothing', outcome: 'run' };

const verdicts = new Map<Requirement, Promise<Verdict>>();

/** The verdict for this process's environment, probed once per test file. */
export function meet(requirement: Requirement): Promise<Verdict> {
  let verdict = verdicts.get(requirement);
  if (verdict === undefined) {
    verdict = evaluate(requirement, process.env);
    verdicts.set(requirement, verdict);
  }
  return verdict;
}

/** `describe` when the requirement is met; a skipped suite naming the reason, or under CI a failing one. */
export function describeIfMet(verdict: Verdict, name: string, fn: () => void): void {
  if (verdict.outcome === 'run') describe(name, fn);
  else if (verdict.outcome === 'skip') {
    console.warn(`${name}: skipped: ${verdict.reason}`);
    describe.skip(`${name} (skipped: ${verdict.reason})`, fn);
  } else describe(name, () => it(`needs ${verdict.requirement}`, () => failMissing(verdict)));
}

/** `it` when the requirement is met; a skipped test naming the reason, or under CI a failing one. */
export function itIfMet(verdict: Verdict, name: string, fn: () => Promise<void> | void, timeout?: number): void {
  if (verdict.outcome === 'run') it(name, fn, timeout);
  else if (verdict.outcome === 'skip') {
    console.warn(`${name}: skipped: ${verdict.reason}`);
    it.skip(`${name} (skipped: ${verdict.reason})`, fn);
  } else it(name, () => failMissing(verdict));
}

function failMissing(verdict: { readonly requirement: string; readonly reason: string }): never {
  throw new Error(`${verdict.requirement} is required under CI=true and is not available: ${verdict.reason}`);
}
