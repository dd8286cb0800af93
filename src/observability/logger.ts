/** pino JSON logs on stdout; the level comes from the configuration. */
import { pino, type Logger as PinoLogger } from 'pino';

export type NodeLogger = PinoLogger;

let stampedAt = Number.NaN;
let stamp = '';
/**
 * pino's isoTime (`,"time":"<ISO 8601>"`), built once per millisecond: under load many access
 * lines share a millisecond, and each would otherwise pay a Date and toISOString().
 */
export function isoTime(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

export function createLogger(level: string): NodeLogger {
  return pino({
    level,
    base: { service: 'tessera' },
    timestamp: isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'masterKey', '*.password'], censor: '[redacted]' },
  });
}
