/** The node's test clock: the offset file moves time only with TESSERA_TEST_MODE=1. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clockFromEnv } from '../../src/cli/test-clock.js';
import { suiteTempDir } from '../temp-dirs.js';

const dir = suiteTempDir('tessera-test-clock-');
const file = join(dir, 'offset');

describe('clockFromEnv', () => {
  it('shifts time by the offset in the file, read at every reading, in test mode', () => {
    const { clock, testClockFile } = clockFromEnv({ TESSERA_TEST_MODE: '1', TESSERA_TEST_CLOCK_FILE: file });
    expect(testClockFile).toBe(file);
    // no file yet: offset 0, the system time
    const before = Date.now();
    expect(clock!.now()).toBeGreaterThanOrEqual(before);
    writeFileSync(file, String(3_600_000));
    expect(clock!.now()).toBeGreaterThanOrEqual(before + 3_600_000);
    writeFileSync(file, 'soon');
    expect(() => clock!.now()).toThrow(/integer offset/);
  });

  it('ignores the file without TESSERA_TEST_MODE=1: the node keeps the system clock', () => {
    writeFileSync(file, String(3_600_000));
    expect(clockFromEnv({ TESSERA_TEST_CLOCK_FILE: file })).toEqual({});
    expect(clockFromEnv({ TESSERA_TEST_MODE: 'true', TESSERA_TEST_CLOCK_FILE: file })).toEqual({});
    expect(clockFromEnv({ TESSERA_TEST_MODE: '1' })).toEqual({});
  });
});
