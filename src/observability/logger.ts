/** pino JSON logs on stdout; the level comes from the configuration. */
import { pino, type Logger as PinoLogger } from 'pino';

export type NodeLogger = PinoLogger;

export function createLogger(level: string): NodeLogger {
  return pino({
    level,
    base: { service: 'tessera' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'masterKey', '*.password'], censor: '[redacted]' },
  });
}
