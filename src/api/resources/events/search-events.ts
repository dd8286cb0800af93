/**
 * SearchEvents: POST /resources/v3alpha/events/_search. The instance's event stream for its
 * administrators (`events.read` instance-wide): filters ANDed, newest first unless
 * `query.asc`, paged by a position cursor (the walk and its cost: event-scan.ts). Payloads
 * leave without secret material (redact.ts).
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromMs, timestampMs } from '@bufbuild/protobuf/wkt';
import { invalidArgument, type StoredEvent } from '../../../../actors/index.js';
import { PlatformEvents, type EventSchema, type EventSearchFilter } from '../../../gen/platform/resources/event/v3alpha/event_service_pb.js';
import { TextFilterMethod, TimestampFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import { toWireOwner } from '../../shared/convert.js';
import { defineRpc } from '../../invoker.js';
import {
  type FilterRules,
  knownEnum,
  matchesText,
  matchesTimestamp,
  maxChars,
  parseListQuery,
  present,
  requiredChars,
  toListDetails,
  validateSearchFilters,
} from '../../shared/search.js';
import { scanEvents } from './event-scan.js';
import { redactPayload } from './redact.js';

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
    if (request.cursor > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw invalidArgument('events.cursor_invalid', 'cursor too large', { violations: [{ field: 'cursor', description: 'must be a position returned by a previous search' }] });
    }
    const projection = await call.services.actors.projectionState(call.instance.id);
    const stream = streamOf(request.filters);
    const scan = await scanEvents(call.services.actors, {
      instanceId: call.instance.id,
      cursor: Number(request.cursor),
      asc: query.asc,
      wanted: query.offset + query.limit,
      head: projection.position,
      ...(stream === undefined ? {} : { stream }),
      matches: (event) => request.filters.every((f) => matchesFilter(event, f)),
    });
    const page = scan.matches.slice(query.offset);
    const details = toListDetails(query, scan.matches.length, page.length, projection);
    details.endOfList = scan.endOfList;
    return { details, result: page.map(toEvent), cursor: BigInt(scan.cursor) };
  },
});

/** The stream named by an aggregate filter with an id (the first, if several). */
function streamOf(filters: readonly EventSearchFilter[]): { type: string; id: string } | undefined {
  for (const f of filters) {
    if (f.filter.case === 'aggregate' && f.filter.value.aggregateId !== '') return { type: f.filter.value.aggregateType, id: f.filter.value.aggregateId };
  }
  return undefined;
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
      return f.value.creationDate !== undefined && matchesTimestamp(event.createdAt, timestampMs(f.value.creationDate), f.value.method);
    default:
      return true;
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
