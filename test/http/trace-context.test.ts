/** W3C Trace Context traceparent parsing (Recommendation §3.2): what is continued, what is ignored. */
import { describe, expect, it } from 'vitest';
import { continueTrace, newSpanId, toTraceparent } from '../../src/http/trace-context.js';

const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const P = '00f067aa0ba902b7';

describe('continueTrace', () => {
  it('keeps trace id and flags, takes a new span id', () => {
    const trace = continueTrace(`00-${T}-${P}-01`);
    expect(trace).toMatchObject({ traceId: T, parentId: P, flags: '01' });
    expect(trace?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace?.spanId).not.toBe(P);
    expect(toTraceparent(trace!)).toBe(`00-${T}-${trace?.spanId}-01`);
  });

  it('reads a future version by its first fields', () => {
    expect(continueTrace(`01-${T}-${P}-00-more`)?.traceId).toBe(T);
    expect(continueTrace(`01-${T}-${P}-00`)?.traceId).toBe(T);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['version ff', `ff-${T}-${P}-01`],
    ['version 00 with more', `00-${T}-${P}-01-x`],
    ['future version glued', `01-${T}-${P}-00x`],
    ['zero trace id', `00-${'0'.repeat(32)}-${P}-01`],
    ['zero parent id', `00-${T}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${T.toUpperCase()}-${P}-01`],
    ['short trace id', `00-${T.slice(1)}-${P}-01`],
    ['non-hex flags', `00-${T}-${P}-0g`],
    ['two headers joined', `00-${T}-${P}-01, 00-${T}-${P}-01`],
  ])('ignores %s', (_name, value) => {
    expect(continueTrace(value)).toBeUndefined();
  });
});

describe('newSpanId', () => {
  it('gives distinct 16-hex ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, newSpanId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });
});
