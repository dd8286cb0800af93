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
