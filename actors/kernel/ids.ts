/**
 * Resource ids: decimal snowflake strings (~18 digits) — time-ordered, unique across
 * processes with overwhelming probability (random 10-bit node id), and never reused:
 * a collision would still only fail a conditional append, never overwrite.
 */
import type { IdGenerator } from './ports.js';

const EPOCH = 1_700_000_000_000n;

export function createIdGenerator(now: () => number, nodeId = Math.floor(Math.random() * 1024)): IdGenerator {
  let lastMs = 0;
  let sequence = 0;
  const node = BigInt(nodeId & 0x3ff);
  return {
    next(): string {
      let ms = now();
      if (ms < lastMs) ms = lastMs;
      if (ms === lastMs) {
        sequence = (sequence + 1) & 0xfff;
        if (sequence === 0) ms = lastMs + 1; // borrow the next millisecond
      } else {
        sequence = 0;
      }
      lastMs = ms;
      return (((BigInt(ms) - EPOCH) << 22n) | (node << 12n) | BigInt(sequence)).toString();
    },
  };
}
