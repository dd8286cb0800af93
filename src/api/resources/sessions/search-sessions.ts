/**
 * SearchSessions: POST /resources/v3alpha/sessions/_search. Sessions of every organization in
 * which the caller holds `session.read` (instance-wide holders see all); an org ctx narrows the
 * search to that organization. Without a state filter only active sessions are listed;
 * `SESSION_STATE_EXPIRED` lists expired ones not yet cleaned up. Filters are ANDed.
 */
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { type AggregateRecord, idTerm, numberTerm, type Session, sessionIndexes } from '../../../../actors/index.js';
import {
  PlatformSessions,
  SessionFieldName,
  type SessionSearchFilter,
  SessionState,
} from '../../../gen/platform/resources/session/v3alpha/session_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { createOrgReadFilter } from '../../shared/owned.js';
import type { Condition } from '../../shared/search-executor.js';
import { matchesTimestamp, maxIds, present, requiredChars, specified } from '../../shared/search.js';
import { isSessionUsable } from '../../../query/sessions.js';
import { toGetSession } from './shared.js';

const SEARCH: SearchDeclaration<SessionSearchFilter> = {
  table: sessionIndexes,
  sort: {
    [SessionFieldName.UNSPECIFIED]: 'created',
    [SessionFieldName.CREATION_DATE]: 'created',
    [SessionFieldName.ID]: 'id',
    [SessionFieldName.CHANGE_DATE]: 'changed',
    [SessionFieldName.EXPIRATION_DATE]: 'expires',
    [SessionFieldName.USER_ID]: 'user',
  },
  rules: {
    inIds: [maxIds()],
    userId: [requiredChars('id')],
    orgId: [requiredChars('id')],
    creationDate: [present('creationDate')],
    state: [specified('state', 'state')],
  },
  condition({ filter: f }, call) {
    switch (f.case) {
      case 'inIds':
        return { ids: f.value.ids };
      case 'userId':
        return { index: 'user', equals: idTerm(f.value.id) };
      case 'orgId':
        return { index: 'org', equals: f.value.id };
      case 'state':
        return stateCondition(call, f.value.state);
      case 'creationDate': {
        const wanted = numberTerm(f.value.creationDate === undefined ? 0 : timestampMs(f.value.creationDate));
        return { index: 'created', test: (term) => matchesTimestamp(term, wanted, f.value.method) };
      }
      default:
        return 'none';
    }
  },
};

/** A session is active until its expiry instant (toSessionState). */
function stateCondition(call: CallContext, state: SessionState): Condition {
  const now = numberTerm(call.services.clock.now());
  if (state === SessionState.ACTIVE) return { index: 'expires', test: (term) => term > now };
  if (state === SessionState.EXPIRED) return { index: 'expires', test: (term) => term <= now };
  return 'none';
}

export const searchSessionsRpc = defineRpc({
  method: PlatformSessions.method.searchSessions,
  permission: 'authenticated',
  async handle(request, call) {
    const conditions: Condition[] = [];
    if (call.scope.type === 'org') conditions.push({ index: 'org', equals: call.scope.orgId });
    if (!request.filters.some((f) => f.filter.case === 'state')) conditions.push(stateCondition(call, SessionState.ACTIVE));
    const mayRead = await createOrgReadFilter(call, 'session.read');
    const { actors } = call.services;
    const { details, rows } = await runSearch<SessionSearchFilter, AggregateRecord<Session>>(call, SEARCH, request, {
      conditions,
      visible: (_id, orgId) => mayRead(orgId),
      scopeOnly: true,
      // The session's user must still exist in its organization: a rule on another aggregate.
      rowCheck: (row) => isSessionUsable(actors, call.instance.id, row),
    });
    const result = [];
    for (const row of rows) result.push(await toGetSession(call, row));
    return { details, sortingColumn: request.sortingColumn, result };
  },
});
