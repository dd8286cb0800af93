/**
 * W3C Trace Context (Recommendation, §3.2 traceparent): an incoming `traceparent` is continued
 * when it is valid — same trace id and flags, a new span id for this request — and ignored
 * otherwise (no new trace is started: the node exports no spans). Version 00 must be exactly
 * 55 characters; a higher version (not ff) is read by its first four fields.
 */
import { randomFillSync } from 'node:crypto';
import type { TraceContext } from './types.js';

const HEX = /^[0-9a-f]+$/;
const ZERO_TRACE = '00000000000000000000000000000000';
const ZERO_SPAN = '0000000000000000';
const LENGTH = 55; // 2 + 1 + 32 + 1 + 16 + 1 + 2

/** The trace of a `traceparent` value with a new span id, or undefined when it is not valid. */
export function continueTrace(value: string | undefined): TraceContext | undefined {
  if (value === undefined || value.length < LENGTH) return undefined;
  if (value.charCodeAt(2) !== DASH || value.charCodeAt(35) !== DASH || value.charCodeAt(52) !== DASH) return undefined;
  const version = value.slice(0, 2);
  if (!HEX.test(version) || version === 'ff') return undefined;
  if (version === '00' ? value.length !== LENGTH : value.length > LENGTH && value.charCodeAt(LENGTH) !== DASH) return undefined;
  const traceId = value.slice(3, 35);
  const parentId = value.slice(36, 52);
  const flags = value.slice(53, 55);
  if (!HEX.test(traceId) || !HEX.test(parentId) || !HEX.test(flags) || traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  return { traceId, parentId, spanId: newSpanId(), flags };
}

/** The traceparent the reply carries: version 00, the same trace and flags, this request's span. */
export function toTraceparent(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

const DASH = 45; // '-'
const pool = Buffer.alloc(8 * 256);
let offset = pool.length;

/** 8 random bytes in hex, never all zero; drawn from a pool refilled 256 spans at a time. */
export function newSpanId(): string {
  for (;;) {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const id = pool.toString('hex', offset, offset + 8);
    offset += 8;
    if (id !== ZERO_SPAN) return id;
  }
}
