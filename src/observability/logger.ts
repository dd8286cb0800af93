/** pino JSON logs on stdout; the level comes from the configuration. */
import { pino, type Logger as PinoLogger } from 'pino';

export type NodeLogger = PinoLogger;

let stampedAt = Number.NaN;
let stamp = '';
let secondAt = Number.NaN;
let secondPrefix = '';
/** 10000-01-01T00:00:00Z: up to here toISOString has its fixed form (four-digit year). */
const FIXED_FORM_END_MS = 253_402_300_800_000;

/**
 * pino's isoTime (`,"time":"<ISO 8601>"`), built once per millisecond: under load many access
 * lines share a millisecond, and each would otherwise pay a Date and toISOString(). The part up
 * to the second (`,"time":"2026-11-27T15:40:00.`) is built once per second and the milliseconds
 * appended: a Date and toISOString() cost ~0.6 µs a new millisecond, the appending ~0.15 µs
 * (contended machine; bench/README.md, issue 13), and at a few thousand requests a second nearly
 * every access line has a new millisecond. Outside 1970–9999 (toISOString's other forms) the
 * whole stamp is built each time, as pino does.
 */
export function isoTime(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    if (!(now >= 0 && now < FIXED_FORM_END_MS && Number.isInteger(now))) {
      secondAt = Number.NaN;
      stamp = `,"time":"${new Date(now).toISOString()}"`;
      return stamp;
    }
    const ms = now % 1000;
    const second = now - ms;
    if (second !== secondAt) {
      secondAt = second;
      // toISOString of a whole second: "YYYY-MM-DDTHH:MM:SS.000Z"; its first 20 characters end at the dot.
      secondPrefix = `,"time":"${new Date(second).toISOString().slice(0, 20)}`;
    }
    stamp = `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
  }
  return stamp;
}

export interface LoggerOptions {
  /**
   * Write each line before the call returns (pino's synchronous destination on stdout) instead of
   * pino's default asynchronous one. For worker threads: pino writes an asynchronous destination's
   * last lines at exit only on the main thread, and a worker ends with process.exit right after it
   * logs why, so a line logged while an earlier write was under way was lost (issue 13's CI flake
   * in test/e2e/workers.test.ts; test/observability/worker-logger.test.ts). A worker's own lines
   * are few (start, stop, failures; access lines have their own writer, request-log.ts).
   */
  readonly synchronous?: boolean;
}

export function createLogger(level: string, options: LoggerOptions = {}): NodeLogger {
  const settings = {
    level,
    base: { service: 'tessera' },
    timestamp: isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'masterKey', '*.password'], censor: '[redacted]' },
  };
  return options.synchronous === true ? pino(settings, pino.destination({ dest: 1, sync: true })) : pino(settings);
}
