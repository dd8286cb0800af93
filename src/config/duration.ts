/**
 * Durations in configuration: `30d`, `12h`, `1h30m`, `45s`, `500ms`, or a bare number of
 * milliseconds. Parsed once at load into milliseconds; `0` is allowed where a key says so.
 */
import { z } from 'zod';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const satisfies Record<string, number>;
const PART = /(\d+)(ms|s|m|h|d)/gy;

/** Milliseconds of a duration text, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (/^\d+$/.test(s)) return Number(s);
  if (s === '') return undefined;
  let total = 0;
  let end = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(s); match !== null; match = PART.exec(s)) {
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    end = PART.lastIndex;
  }
  return end === s.length ? total : undefined;
}

/** A duration key: text or milliseconds in, milliseconds out (default given as text, e.g. `'30d'`). */
export function durationMs(defaultText: string) {
  return z
    .union([z.number(), z.string()])
    .transform((value, ctx) => {
      const ms = typeof value === 'number' ? value : parseDuration(value);
      if (ms === undefined || !Number.isSafeInteger(ms) || ms < 0) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 30d, 12h, 1h30m, 45s, 500ms, or milliseconds' });
        return z.NEVER;
      }
      return ms;
    })
    .prefault(defaultText);
}

/** A rate: `N/duration` (e.g. `10/1m`, `1000/1s`): N events per window; `off` turns the limit off. */
export interface Rate {
  readonly points: number;
  readonly windowMs: number;
}

/** A rate as configured: `off`, or `N/duration` with the largest whole unit (`10/1m`). */
export function formatRate(value: Rate | 'off'): string {
  if (value === 'off') return 'off';
  const seconds = value.windowMs / 1_000;
  const window = seconds % 86_400 === 0 ? `${seconds / 86_400}d` : seconds % 3_600 === 0 ? `${seconds / 3_600}h` : seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`;
  return `${value.points}/${window}`;
}

/** Parses `N/duration` (window at least one second, whole seconds) or `off`. */
export function parseRate(text: string): Rate | 'off' | undefined {
  const s = text.trim();
  if (s === 'off') return 'off';
  const [count = '', window = '', extra] = s.split('/');
  if (extra !== undefined || !/^[1-9]\d{0,8}$/.test(count)) return undefined;
  const windowMs = parseDuration(window);
  if (windowMs === undefined || windowMs < 1_000 || windowMs % 1_000 !== 0) return undefined;
  return { points: Number(count), windowMs };
}

/** A rate key: `N/duration` or `off` (default given as text, e.g. `'10/1m'`). */
export function rateLimit(defaultText: string) {
  return z
    .string()
    .transform((value, ctx) => {
      const rate = parseRate(value);
      if (rate === undefined) {
        ctx.addIssue({ code: 'custom', message: 'must be N/duration such as 10/1m or 1000/1s (whole seconds, at least 1s), or off' });
        return z.NEVER;
      }
      return rate;
    })
    .prefault(defaultText);
}
