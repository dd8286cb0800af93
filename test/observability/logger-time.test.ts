import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { isoTime } from '../../src/observability/logger.js';

describe('the log time field', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is pino's isoTime for the current millisecond, built anew when the millisecond changes", () => {
    const clock = vi.spyOn(Date, 'now');
    for (const ms of [Date.UTC(2026, 10, 26, 11, 0, 0, 1), Date.UTC(2026, 10, 26, 11, 0, 0, 1), Date.UTC(2026, 10, 26, 11, 0, 0, 2), Date.UTC(2030, 0, 1)]) {
      clock.mockReturnValue(ms);
      expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
      expect(isoTime()).toBe(`,"time":"${new Date(ms).toISOString()}"`);
    }
  });
});
