/**
 * A clock the end-to-end tests can move: with TESSERA_TEST_MODE=1 and TESSERA_TEST_CLOCK_FILE
 * set, the node's time is the system time plus the offset in milliseconds that the file holds
 * (read at every reading of the clock; a missing file is offset 0). Tests write a larger offset
 * to make tokens, codes and sessions expire instead of sleeping. Without TESSERA_TEST_MODE=1 the
 * file is ignored and the node runs on the system clock; when active the node says so at start.
 */
import { readFileSync } from 'node:fs';
import type { Clock } from '../../actors/index.js';

export interface ChosenClock {
  /** Undefined: the system clock (the node's default). */
  readonly clock?: Clock;
  /** The offset file when the test clock is in use (for the start-up warning). */
  readonly testClockFile?: string;
}

export function clockFromEnv(env: Readonly<Record<string, string | undefined>>): ChosenClock {
  const file = env.TESSERA_TEST_CLOCK_FILE;
  if (env.TESSERA_TEST_MODE !== '1' || file === undefined || file === '') return {};
  return { clock: { now: () => Date.now() + offsetIn(file) }, testClockFile: file };
}

function offsetIn(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const offset = Number(text);
  if (text === '' || !Number.isSafeInteger(offset)) throw new Error(`TESSERA_TEST_CLOCK_FILE ${file} must hold an integer offset in milliseconds, not ${JSON.stringify(text.slice(0, 40))}`);
  return offset;
}
