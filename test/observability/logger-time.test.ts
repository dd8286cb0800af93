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

  it('is the same for every millisecond of a second, across seconds, days and years, and outside 1970–9999', () => {
    const clock = vi.spyOn(Date, 'now');
    const instants: number[] = [];
    const second = Date.UTC(2026, 10, 27, 15, 40, 0, 0);
    for (let ms = 0; ms < 1000; ms++) instants.push(second + ms); // 0, 9, 10, 99, 100, 999 padded alike
    instants.push(second - 1, second + 1000, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.UTC(2028, 1, 29, 12, 0, 0, 5), 0, 999, 1000, Date.UTC(9999, 11, 31, 23, 59, 59, 999));
    instants.push(Date.UTC(10000, 0, 1), Date.UTC(1969, 11, 31, 23, 59, 59, 999), -1, Date.UTC(2026, 10, 27, 15, 40, 0, 7)); // toISOString's other forms, then back
    for (const ms of instants) {
      clock.mockReturnValue(ms);
      const expected = `,"time":"${new Date(ms).toISOString()}"`;
      expect(isoTime()).toBe(expected);
      expect(pino.stdTimeFunctions.isoTime()).toBe(expected); // the control: pino's own, on the same clock
    }
    expect(new Date(Date.UTC(10000, 0, 1)).toISOString()).toBe('+010000-01-01T00:00:00.000Z');
  });
});
