/**
 * SearchEvents: POST /resources/v3alpha/events/_search. The instance's event stream for its
 * administrators (`events.read` instance-wide): filters ANDed, newest first unless
 * `query.asc`, paged by a position cursor.
 *
 * Cost: an aggregate filter with an id reads that resource's stream (indexed). Every other
 * search walks the instance's events by position from the cursor, in batches of SCAN_BATCH,
 * and stops after `offset + limit` matches or after SCAN_BUDGET events, whichever comes first;
 * the response's `cursor` continues the walk. A rare match in a large instance therefore may
 * take several calls, each bounded.
 */
import { timestampFromMs, timestampMs } from '@bufbuild/protobuf/wkt';
import { type StoredEvent } from '../../../../actors/index.js';
import {
  PlatformEvents,
  type EventSearchFilter,
} from '../../../gen/platform/resources/event/v3alpha/event_service_pb.js';
import { TextFilterMethod, TimestampFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { EventSchema } from '../../../gen/platform/resources/event/v3alpha/event_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toWireOwner } from '../../shared/convert.js';
import { defineRpc } from '../../invoker.js';
import {
  type FilterRules,
  knownEnum,
  matchesText,
  maxChars,
  parseListQuery,
  present,
  requiredChars,
  toListDetails,
  validateSearchFilters,
} from '../../shared/search.js';
import { redactPayload } from './redact.js';

/** Events read per store call. */
export const SCAN_BATCH = 500;
/** Most events one call examines before it answers with a cursor. */
export const SCAN_BUDGET = 20_000;

const FILTER_RULES: FilterRules<EventSearchFilter> = {
  aggregate: [requiredChars('aggregateType'), maxChars('aggregateId')],
  eventType: [requiredChars('eventType'), knownEnum('method', TextFilterMethod)],
  creator: [requiredChars('id')],
  creationDate: [present('creationDate'), knownEnum('method', TimestampFilterMethod)],
  orgId: [requiredChars('id')],
};

export const searchEventsRpc = defineRpc({
  method: PlatformEvents.method.searchEvents,
  permission: 'events.read',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    validateSearchFilters(request.filters, FILTER_RULES);
    const matches = (event: StoredEvent) => request.filters.every((f) => matchesFilter(event, f));
    const projection = await call.services.actors.projectionState(call.instance.id);
    const cursor = Number(request.cursor);
    const wanted = query.offset + query.limit;
    const stream = streamOf(request.filters);
    const walk = stream === undefined ? walkPositions(call, cursor, query.asc, projection.position) : walkStream(call, stream, cursor, query.asc);
    const found: StoredEvent[] = [];
    let next = cursor;
    let exhausted = true;
    for await (const step of walk) {
      if (step.budgetSpent) {
        exhausted = false;
        next = step.position;
        break;
      }
      next = step.position;
      if (step.event === undefined || !matches(step.event)) continue;
      found.push(step.event);
      if (found.length >= wanted) {
        exhausted = false;
        break;
      }
    }
    // Stopped on the last match: the end is reached when no event lies beyond it.
    if (!exhausted && found.length >= wanted) exhausted = await nothingBeyond(call, stream, next, query.asc, projection.position);
    const page = found.slice(query.offset);
    const details = toListDetails(query, found.length, page.length, projection);
    details.endOfList = exhausted;
    return { details, result: page.map(toEvent), cursor: BigInt(next) };
  },
});

interface Step {
  /** The position examined (the cursor to continue after). */
  readonly position: number;
  readonly event?: StoredEvent;
  /** The scan budget is spent; `position` is where to continue. */
  readonly budgetSpent?: boolean;
}

/** The stream named by an aggregate filter with an id (the first, if several). */
function streamOf(filters: readonly EventSearchFilter[]): { type: string; id: string } | undefined {
  for (const f of filters) {
    if (f.filter.case === 'aggregate' && f.filter.value.aggregateId !== '') return { type: f.filter.value.aggregateType, id: f.filter.value.aggregateId };
  }
  return undefined;
}

async function* walkStream(call: CallContext, stream: { type: string; id: string }, cursor: number, asc: boolean): AsyncGenerator<Step> {
  const events = await call.services.actors.readStream(call.instance.id, stream.type, stream.id);
  const ordered = asc ? events : [...events].reverse();
  for (const event of ordered) {
    if (cursor > 0 && (asc ? event.position <= cursor : event.position >= cursor)) continue;
    yield { position: event.position, event };
  }
}

/**
 * The instance's events from the cursor, in either direction. Descending reads windows of
 * SCAN_BATCH positions below the cursor: a window (lo, upper) holds at most SCAN_BATCH events,
 * so one forward read of SCAN_BATCH events after `lo` covers it even when positions have gaps.
 */
async function* walkPositions(call: CallContext, cursor: number, asc: boolean, head: number): AsyncGenerator<Step> {
  const { actors } = call.services;
  const instanceId = call.instance.id;
  let examined = 0;
  if (asc) {
    let after = cursor;
    for (;;) {
      if (examined >= SCAN_BUDGET) {
        yield { position: after, budgetSpent: true };
        return;
      }
      const batch = await actors.readEvents(instanceId, after, SCAN_BATCH);
      for (const event of batch) {
        examined++;
        after = event.position;
        yield { position: event.position, event };
      }
      if (batch.length < SCAN_BATCH) return;
    }
  }
  let upper = cursor > 0 ? cursor : head + 1;
  while (upper > 1) {
    if (examined >= SCAN_BUDGET) {
      yield { position: upper, budgetSpent: true };
      return;
    }
    const lo = Math.max(0, upper - 1 - SCAN_BATCH);
    const batch = await actors.readEvents(instanceId, lo, SCAN_BATCH);
    const window = batch.filter((e) => e.position < upper).reverse();
    for (const event of window) {
      examined++;
      yield { position: event.position, event };
    }
    upper = lo + 1;
    yield { position: upper };
  }
}

/** True when no event of the walk lies beyond `position` (so a full page can also be the last). */
async function nothingBeyond(call: CallContext, stream: { type: string; id: string } | undefined, position: number, asc: boolean, head: number): Promise<boolean> {
  if (stream !== undefined) {
    for await (const _ of walkStream(call, stream, position, asc)) return false;
    return true;
  }
  if (asc) return position >= head;
  const [first] = await call.services.actors.readEvents(call.instance.id, 0, 1);
  return first === undefined || position <= first.position;
}

function matchesFilter(event: StoredEvent, filter: EventSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'aggregate':
      return event.aggregateType === f.value.aggregateType && (f.value.aggregateId === '' || event.aggregateId === f.value.aggregateId);
    case 'eventType':
      return matchesText(event.type, f.value.eventType, f.value.method);
    case 'creator':
      return event.creator === f.value.id;
    case 'orgId':
      return event.owner.type === 'org' && event.owner.id === f.value.id;
    case 'creationDate':
      return f.value.creationDate !== undefined && matchesTime(event.createdAt, timestampMs(f.value.creationDate), f.value.method);
    default:
      return true;
  }
}

function matchesTime(value: number, wanted: number, method: TimestampFilterMethod): boolean {
  switch (method) {
    case TimestampFilterMethod.EQUALS:
      return value === wanted;
    case TimestampFilterMethod.GREATER:
      return value > wanted;
    case TimestampFilterMethod.GREATER_OR_EQUALS:
      return value >= wanted;
    case TimestampFilterMethod.LESS:
      return value < wanted;
    case TimestampFilterMethod.LESS_OR_EQUALS:
      return value <= wanted;
    default:
      return false;
  }
}

function toEvent(event: StoredEvent): MessageInitShape<typeof EventSchema> {
  const { payload, redacted } = redactPayload(event.payload);
  return {
    position: BigInt(event.position),
    aggregateType: event.aggregateType,
    aggregateId: event.aggregateId,
    sequence: BigInt(event.version),
    eventType: event.type,
    creator: event.creator,
    ...(event.createdAt > 0 ? { creationDate: timestampFromMs(event.createdAt) } : {}),
    resourceOwner: toWireOwner(event.owner),
    payload,
    redactedFields: [...redacted],
  };
}
