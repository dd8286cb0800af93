/**
 * The walk behind SearchEvents over an instance's events, from a position cursor in either
 * direction, bounded per call.
 *
 * Cost: with a stream (aggregate type and id) the walk reads only that stream (indexed).
 * Otherwise it reads the instance's events by position, `batch` at a time, and stops after
 * `wanted` matches or after covering `budget` positions, whichever comes first; the cursor it answers
 * continues the walk. Descending reads windows of `batch` positions below the cursor: a window
 * (lo, upper) holds at most `batch` events, so one forward read of `batch` events after `lo`
 * covers it even when positions have gaps.
 */
import type { StoredEvent } from '../../../../actors/index.js';

/** The store reads the walk needs (ActorSystem and every StoreAdapter have them). */
export interface EventReads {
  readEvents(instanceId: string, after: number, limit: number): Promise<readonly StoredEvent[]>;
  readStream(instanceId: string, aggregateType: string, aggregateId: string): Promise<readonly StoredEvent[]>;
}

export interface EventScan {
  readonly instanceId: string;
  /** Exclusive: events after it (ascending) or before it (descending); 0 starts at the end. */
  readonly cursor: number;
  readonly asc: boolean;
  /** Stop after this many matches. */
  readonly wanted: number;
  /** The instance's newest position when the search started. */
  readonly head: number;
  /** Read only this stream (aggregate type and id). */
  readonly stream?: { readonly type: string; readonly id: string };
  matches(event: StoredEvent): boolean;
}

export interface ScanLimits {
  /** Events read per store call. */
  readonly batch: number;
  /** Most positions one call covers (events read, or empty windows descending) before it answers with a cursor. */
  readonly budget: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { batch: 500, budget: 20_000 };

export interface ScanResult {
  readonly matches: readonly StoredEvent[];
  /** Where the next call continues (exclusive). */
  readonly cursor: number;
  /** No event remains beyond `cursor` in the walk's direction. */
  readonly endOfList: boolean;
}

interface Step {
  readonly position: number;
  readonly event?: StoredEvent;
  readonly budgetSpent?: boolean;
}

export async function scanEvents(reads: EventReads, scan: EventScan, limits: ScanLimits = DEFAULT_SCAN_LIMITS): Promise<ScanResult> {
  const walk = scan.stream === undefined ? walkPositions(reads, scan, limits) : walkStream(reads, scan, scan.stream);
  const matches: StoredEvent[] = [];
  let cursor = scan.cursor;
  for await (const step of walk) {
    cursor = step.position;
    if (step.budgetSpent === true) return { matches, cursor, endOfList: false };
    if (step.event === undefined || !scan.matches(step.event)) continue;
    matches.push(step.event);
    // Stopped on a match: the end is reached only when no event lies beyond it.
    if (matches.length >= scan.wanted) return { matches, cursor, endOfList: await nothingBeyond(reads, scan, cursor) };
  }
  return { matches, cursor, endOfList: true };
}

async function* walkStream(reads: EventReads, scan: EventScan, stream: { readonly type: string; readonly id: string }): AsyncGenerator<Step> {
  const events = await reads.readStream(scan.instanceId, stream.type, stream.id);
  const ordered = scan.asc ? events : [...events].reverse();
  for (const event of ordered) {
    if (scan.cursor > 0 && (scan.asc ? event.position <= scan.cursor : event.position >= scan.cursor)) continue;
    yield { position: event.position, event };
  }
}

async function* walkPositions(reads: EventReads, scan: EventScan, limits: ScanLimits): AsyncGenerator<Step> {
  const batch = Math.max(1, limits.batch);
  let examined = 0;
  if (scan.asc) {
    let after = scan.cursor;
    for (;;) {
      if (examined >= limits.budget) {
        yield { position: after, budgetSpent: true };
        return;
      }
      const events = await reads.readEvents(scan.instanceId, after, Math.min(batch, limits.budget - examined));
      for (const event of events) {
        examined++;
        after = event.position;
        yield { position: event.position, event };
      }
      if (events.length === 0 || after >= scan.head) return;
    }
  }
  // Nothing lies above the head: a larger cursor starts there (else empty windows up to it).
  let upper = scan.cursor > 0 ? Math.min(scan.cursor, scan.head + 1) : scan.head + 1;
  while (upper > 1) {
    if (examined >= limits.budget) {
      yield { position: upper, budgetSpent: true };
      return;
    }
    const lo = Math.max(0, upper - 1 - Math.min(batch, limits.budget - examined));
    const events = await reads.readEvents(scan.instanceId, lo, upper - 1 - lo);
    for (const event of events.filter((e) => e.position < upper).reverse()) yield { position: event.position, event };
    // The budget counts positions covered, so windows of gaps cost too.
    examined += upper - 1 - lo;
    upper = lo + 1;
    yield { position: upper };
  }
}

/** True when no event of the walk lies beyond `position`. */
async function nothingBeyond(reads: EventReads, scan: EventScan, position: number): Promise<boolean> {
  if (scan.stream !== undefined) {
    for await (const _ of walkStream(reads, { ...scan, cursor: position }, scan.stream)) return false;
    return true;
  }
  if (scan.asc) return position >= scan.head;
  const [first] = await reads.readEvents(scan.instanceId, 0, 1);
  return first === undefined || position <= first.position;
}
