/**
 * Rate-limit counts shared by the worker threads of one node whose counts live in memory (LMDB),
 * without a message per counted event: a fixed-window counter table in a SharedArrayBuffer that
 * the main thread creates and hands to every worker at start (workers.ts → worker-main.ts).
 *
 * Open addressing, SLOT_BYTES per slot: a lock word, a 64-bit fingerprint of (limit, scope,
 * rate, key) as two 32-bit halves, the count, and the window's end (epoch ms, a float64). The
 * fingerprint is keyed with a per-node random secret, so a client cannot choose keys that
 * collide (a collision would merge two keys' counts: more refusals, never fewer). A consume takes
 * the slot's lock (Atomics.compareExchange; held for a few loads and stores, no call or throw
 * inside), counts, and releases it (Atomics.store): every update of a slot is whole, the window
 * reset included. A slot whose window has ended is free for any key.
 *
 * The semantics are RateLimiterMemory's with blockDuration = duration (what memoryCounters
 * builds for one thread): the window starts at a key's first event; the event that first goes
 * past the limit starts a new window from then (the key is refused for a whole window); later
 * events in it are counted and refused.
 *
 * A full table (no live slot of the key and no free one among the PROBES slots from its home
 * slot), or a slot lock not taken after LOCK_SPINS tries (a worker ended while holding it), fails
 * safe: that event is counted by a limiter of the worker alone with the limit divided by the
 * number of workers (at least 1), so a client spread across every worker gets at most about its
 * limit, never unlimited; `onFallback` is told (a warning in the log, once per worker).
 */
import { randomBytes } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from '../http/rate-limiter-memory.js';
import type { CounterFactory, LimitCounter } from '../http/rate-limits.js';

/** Int32 fields of a slot: lock, fingerprint high and low halves, count; then the window end as a float64. */
const INTS = 6;
const SLOT_BYTES = INTS * 4;
const LOCK = 0;
const FP_HI = 1;
const FP_LO = 2;
const COUNT = 3;
/** Float64 index of a slot's window end: bytes 16–23 of the slot. */
const END = 2;
/** Slots looked at from a key's home slot. */
export const PROBES = 16;
const LOCK_SPINS = 1_000_000;
/** Default slots: 65,536 (1.5 MiB), live keys of all limits of one node within one window. */
export const DEFAULT_SLOTS = 1 << 16;

/** What the main thread hands to each worker. */
export interface SharedRateTable {
  readonly buffer: SharedArrayBuffer;
  /** Four random 32-bit words: the node's fingerprint key. */
  readonly secret: Uint32Array;
}

/** A new, empty table of `slots` slots (rounded up to a power of two) with a fresh random secret. */
export function createSharedRateTable(slots = DEFAULT_SLOTS): SharedRateTable {
  let size = 1;
  while (size < slots) size *= 2;
  return { buffer: new SharedArrayBuffer(size * SLOT_BYTES), secret: new Uint32Array(randomBytes(16).buffer.slice(0, 16)) };
}

export interface SharedCounterOptions {
  /** Workers sharing the table: a fallback limiter counts 1/workers of the limit. */
  readonly workers: number;
  readonly now?: () => number;
  /** Called when an event is counted by the worker's own fallback limiter (full table, stuck slot lock). */
  readonly onFallback?: () => void;
}

/** One step of a keyed 32-bit string hash lane (multiply-xorshift over UTF-16 code units). */
function step(h: number, c: number, m: number): number {
  h = Math.imul(h ^ c, m);
  return h ^ (h >>> 15);
}

function finish(h: number, length: number): number {
  h ^= length;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

function feed(h: number, text: string, m: number): number {
  for (let i = 0; i < text.length; i++) h = step(h, text.charCodeAt(i), m);
  return h;
}

const M_HI = 0x5bd1e995;
const M_LO = 0x27d4eb2d;

/** A counter's fingerprint seeds: the node secret and (limit, scope, rate), hashed once per counter. */
function seeds(secret: Uint32Array, limit: string, scope: string, points: number, windowMs: number): readonly [number, number] {
  const [s0 = 0, s1 = 0, s2 = 0, s3 = 0] = secret;
  const prefix = `${limit}\u0000${scope}\u0000${points}\u0000${windowMs}\u0000`;
  return [feed(s0 ^ s2, prefix, M_HI), feed(s1 ^ s3, prefix, M_LO)];
}

const half = (seed: number, key: string, m: number): number => finish(feed(seed, key, m), key.length);

/** Counters over a shared table: each consume is counted in the table, synchronously (a settled promise). */
export function sharedCounters(table: SharedRateTable, options: SharedCounterOptions): CounterFactory {
  const ints = new Int32Array(table.buffer);
  const floats = new Float64Array(table.buffer);
  const mask = ints.length / INTS - 1;
  const now = options.now ?? Date.now;
  let fellBack = false;

  return (limit, rate, scope) => {
    const points = rate.points;
    const windowMs = rate.windowMs;
    // The counter's part of every fingerprint, hashed once; each key continues from it.
    const [hiSeed, loSeed] = seeds(table.secret, limit, scope, points, windowMs);
    let fallback: RateLimiterMemory | undefined;
    const fallbackConsume = (key: string): Promise<RateLimiterRes> => {
      if (!fellBack) {
        fellBack = true;
        options.onFallback?.();
      }
      const share = Math.max(1, Math.floor(points / Math.max(1, options.workers)));
      fallback ??= new RateLimiterMemory({ points: share, duration: windowMs / 1_000, blockDuration: windowMs / 1_000 });
      return fallback.consume(key);
    };

    /** Counts in slot `slot` (locked by the caller) for a key already there or new; returns the result. */
    const count = (base: number, slot: number, fpHi: number, fpLo: number, at: number): RateLimiterRes | undefined => {
      let end = floats[slot * 3 + END] as number;
      let first = false;
      let n: number;
      if ((ints[base + FP_HI] === fpHi && ints[base + FP_LO] === fpLo) || end <= at) {
        if (end <= at) {
          ints[base + FP_HI] = fpHi;
          ints[base + FP_LO] = fpLo;
          end = at + windowMs;
          n = 1;
          first = true;
        } else {
          n = (ints[base + COUNT] as number) + 1;
          // The first event past the limit refuses the key for a whole window from now.
          if (n === points + 1) end = at + windowMs;
        }
        if (n < 0x7fffffff) ints[base + COUNT] = n;
        floats[slot * 3 + END] = end;
        return new RateLimiterRes(Math.max(points - n, 0), end - at, n, first);
      }
      return undefined;
    };

    const lock = (base: number): boolean => {
      for (let spins = 0; spins < LOCK_SPINS; spins++) if (Atomics.compareExchange(ints, base + LOCK, 0, 1) === 0) return true;
      return false;
    };

    const consumeShared = (key: string): RateLimiterRes | undefined => {
      const fpHi = half(hiSeed, key, M_HI);
      const fpLo = half(loSeed, key, M_LO);
      const at = now();
      // Two passes: the key's live slot if any; else the first slot whose window ended (re-checked under its lock).
      for (let attempt = 0; attempt < 2; attempt++) {
        let free = -1;
        for (let i = 0; i < PROBES; i++) {
          const slot = (fpLo + i) & mask;
          const base = slot * INTS;
          if (!lock(base)) return undefined;
          const live = (floats[slot * 3 + END] as number) > at;
          if (live && ints[base + FP_HI] === fpHi && ints[base + FP_LO] === fpLo) {
            const res = count(base, slot, fpHi, fpLo, at);
            Atomics.store(ints, base + LOCK, 0);
            return res;
          }
          Atomics.store(ints, base + LOCK, 0);
          if (!live && free < 0) free = slot;
        }
        if (free < 0) return undefined;
        const base = free * INTS;
        if (!lock(base)) return undefined;
        // Another worker may have taken it meanwhile: for this key (count there) or another (look again).
        const res = count(base, free, fpHi, fpLo, at);
        Atomics.store(ints, base + LOCK, 0);
        if (res !== undefined) return res;
      }
      return undefined;
    };

    const counter: LimitCounter = {
      consume(key) {
        const res = consumeShared(key);
        if (res === undefined) return fallbackConsume(key);
        return res.consumedPoints <= points ? Promise.resolve(res) : Promise.reject(res);
      },
    };
    return counter;
  };
}

/** The fingerprint halves of one counted key (tests: per-node secrets give different fingerprints). */
export function fingerprintOf(secret: Uint32Array, limit: string, scope: string, points: number, windowMs: number, key: string): readonly [number, number] {
  const [hiSeed, loSeed] = seeds(secret, limit, scope, points, windowMs);
  return [half(hiSeed, key, M_HI), half(loSeed, key, M_LO)];
}
