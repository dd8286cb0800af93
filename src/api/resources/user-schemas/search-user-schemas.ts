/** SearchUserSchemas: POST /resources/v3alpha/user_schemas/_search (`userschema.read`); filters are ANDed. */
import { type AggregateRecord, type UserSchema, userSchemaKind } from '../../../../actors/index.js';
import {
  PlatformUserSchemas,
  UserSchemaFieldName,
  type UserSchemaSearchFilter,
} from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { compareIds, compareNumbers, compareStrings, type FilterRules, matchesText, maxChars, maxIds, paginate, parseListQuery, specified, validateSearchFilters } from '../../shared/search.js';
import { toGetUserSchema, toWireSchemaState } from './shared.js';

type Row = AggregateRecord<UserSchema>;

const comparators: Record<UserSchemaFieldName, (a: Row, b: Row) => number> = {
  [UserSchemaFieldName.UNSPECIFIED]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [UserSchemaFieldName.CREATION_DATE]: (a, b) => compareNumbers(a.meta.createdAt, b.meta.createdAt),
  [UserSchemaFieldName.ID]: (a, b) => compareIds(a.id, b.id),
  [UserSchemaFieldName.CHANGE_DATE]: (a, b) => compareNumbers(a.meta.changedAt, b.meta.changedAt),
  [UserSchemaFieldName.TYPE]: (a, b) => compareStrings(a.state.type, b.state.type),
  [UserSchemaFieldName.STATE]: (a, b) => compareNumbers(toWireSchemaState(a.state.state), toWireSchemaState(b.state.state)),
  [UserSchemaFieldName.REVISION]: (a, b) => compareNumbers(a.state.revision, b.state.revision),
};

const FILTER_RULES: FilterRules<UserSchemaSearchFilter> = { type: [maxChars('type')], inIds: [maxIds()], state: [specified('state', 'state')] };

export const searchUserSchemasRpc = defineRpc({
  method: PlatformUserSchemas.method.searchUserSchemas,
  permission: 'userschema.read',
  async handle(request, call) {
    const query = parseListQuery(request.query);
    const compare = comparators[request.sortingColumn] ?? comparators[UserSchemaFieldName.UNSPECIFIED];
    validateSearchFilters(request.filters, FILTER_RULES);
    const rows: Row[] = [];
    for await (const row of call.services.actors.scanRecords(call.instance.id, userSchemaKind)) {
      if (request.filters.every((f) => matchesFilter(row, f))) rows.push(row);
    }
    const page = paginate(rows, compare, query, await call.services.actors.projectionState(call.instance.id));
    return { details: page.details, sortingColumn: request.sortingColumn, result: page.items.map(toGetUserSchema) };
  },
});

function matchesFilter(row: Row, filter: UserSchemaSearchFilter): boolean {
  const f = filter.filter;
  switch (f.case) {
    case 'type':
      return matchesText(row.state.type, f.value.type, f.value.method);
    case 'state':
      return toWireSchemaState(row.state.state) === f.value.state;
    case 'inIds':
      return f.value.ids.includes(row.id);
    default:
      return true;
  }
}
