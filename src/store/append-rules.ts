/**
 * The decision of a conditional append (actors/kernel/ports.ts StoreAdapter.append), shared by
 * both stores so they cannot drift: every expectation must meet its stream's head, no claimed
 * value may be held by another holder (the append's own releases free a value first), and the
 * events get the next versions of their streams and the next positions of the instance. The
 * stores only say where heads and holders come from (an LMDB read, a PostgreSQL batch view).
 */
import type { AppendRequest, AppendResult, NewEvent, StoredEvent } from '../../actors/index.js';

const SEP = '\u0000';

export const streamKey = (aggregateType: string, aggregateId: string): string => aggregateType + SEP + aggregateId;
export const claimKey = (scope: string, value: string): string => scope + SEP + value;

export type Refused = Extract<AppendResult, { ok: false }>;

/** The stream versions the append starts from, or the conflict of the first stale expectation. */
export function checkExpectations(request: AppendRequest, headOf: (aggregateType: string, aggregateId: string) => number): Map<string, number> | Refused {
  const versions = new Map<string, number>();
  for (const x of request.expectations) {
    const actual = headOf(x.aggregateType, x.aggregateId);
    if (actual !== x.expectedVersion) return { ok: false, reason: 'conflict', aggregateType: x.aggregateType, aggregateId: x.aggregateId, actualVersion: actual };
    versions.set(streamKey(x.aggregateType, x.aggregateId), actual);
  }
  return versions;
}

/** The first claim another holder has (after the append's own releases and earlier claims), or undefined. */
export function findClaimClash(request: AppendRequest, holderOf: (scope: string, value: string) => string | undefined): Refused | undefined {
  const released = new Set((request.releases ?? []).map((r) => claimKey(r.scope, r.value)));
  const pending = new Map<string, string>();
  for (const { scope, value, holder } of request.claims ?? []) {
    const id = claimKey(scope, value);
    const current = pending.get(id) ?? (released.has(id) ? undefined : holderOf(scope, value));
    if (current !== undefined && current !== holder) return { ok: false, reason: 'unique', scope, value, holder: current };
    pending.set(id, holder);
  }
  return undefined;
}

/** The stored events: consecutive versions per stream from `versions`, positions from `first`. */
export function placeEvents(request: AppendRequest, versions: Map<string, number>, first: number): StoredEvent[] {
  let position = first - 1;
  return request.events.map((event: NewEvent) => {
    const stream = streamKey(event.aggregateType, event.aggregateId);
    const previous = versions.get(stream);
    if (previous === undefined) throw new Error(`append: no expectation for stream ${event.aggregateType}/${event.aggregateId}`);
    versions.set(stream, previous + 1);
    position += 1;
    const { aggregateType, aggregateId, type, owner, creator, payload } = event;
    const { instanceId, createdAt } = request;
    return { instanceId, aggregateType, aggregateId, type, owner, creator, payload, version: previous + 1, position, createdAt };
  });
}
