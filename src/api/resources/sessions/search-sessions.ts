/**
 * SearchSessions: POST /resources/v3alpha/sessions/_search. Sessions of every organization in
 * which the caller holds `session.read` (instance-wide holders see all); an org ctx narrows the
 * search to that organization. Without a state filter only active sessions are listed;
 * `SESSION_STATE_EXPIRED` lists expired ones not yet cleaned up. Filters are ANDed.
 */
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { type AggregateRecord, type Session, sessionKind } from '../../../../actors/index.js';
import { TimestampFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import {
  PlatformSessions,
  SessionFieldName,
  type SessionSearchFilter,
  SessionState,
} from '../../../gen/platform/resources/session/v3alpha/session_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import { compareIds, compareNumbers, type FilterRules, maxIds, paginate, parseListQuery, present, requiredChars, specified, validateSearchFilters } from '../../shared/search.js';
import { isSessionUsable } from '../../shared/sessions.js';
import { toGetSession, toSessionState } from './shared.js';

type Row = AggregateRecord<Session>;

const byCreation = (a: Row, b: Row) => compareNumbers(a.meta.createdAt, b.meta.createdAt);

const comparators: Record<SessionFieldName, (a: Row, b: Row) => number> = {
  [SessionFieldName.UNSPECIFIED]: byCreation,
  [SessionFieldName.CREATION_DATE]: byCreation,
  [SessionFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [SessionFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [SessionFieldName.EXPIRATION_DATE]: (a, b) => compareNumbers(a.state.expiresAt, b.state.expiresAt),
  [SessionFieldName.USER_ID]: (a, b) => compareIds(a.state.userId, b.state.userId),
};

const FILTER_RULES: FilterRules<SessionSearchFilter> = {
  inIds: [maxIds()],
  userId: [requiredChars('id')],
  orgId: [requiredChars('id')],
  creationDate: [present('creationDate')],
  state: [specified('state', 'state')],
};

export const searchSessionsRpc = defineRpc({
  method: PlatformSessions.method.searchSessions,
  permission: 'authenticated',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? byCreation;
    validateSearchFilters(request.filters, FILTER_RULES);
    const now = call.services.clock.now();
    const filters = request.filters.some((f) => f.filter.case === 'state')
      ? request.filters
      : [...request.filters, { filter: { case: 'state', value: { state: SessionState.ACTIVE } } } as SessionSearchFilter];
    const mayRead = await createOrgReadFilter(call, 'session.read');
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const { actors } = call.services;
    const rows: Row[] = [];
    for await (const row of actors.scanRecords(call.instance.id, sessionKind)) {
      if (onlyOrg !== undefined && row.state.orgId !== onlyOrg) continue;
      if (!filters.every((f) => matchesFilter(row, f, now))) continue;
      if (!(await mayRead(row.state.orgId)) || !(await isSessionUsable(actors, call.instance.id, row))) continue;
      rows.push(row);
    }
    const page = paginate(rows, compare, query, await actors.projectionState(call.instance.id));
    const result = [];
    for (const row of page.items) result.push(await toGetSession(call, row));
    return { details: page.details, sortingColumn: request.sortingColumn, result };
  },
});

function matchesFilter(row: Row, filter: SessionSearchFilter, now: number): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'inIds':
      return f.value.ids.includes(row.id);
    case 'userId':
      return row.state.userId === f.value.id;
    case 'orgId':
      return row.state.orgId === f.value.id;
    case 'state':
      return toSessionState(row.state, now) === f.value.state;
    case 'creationDate':
      return matchesTime(row.meta.createdAt, f.value.creationDate === undefined ? 0 : timestampMs(f.value.creationDate), f.value.method);
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
