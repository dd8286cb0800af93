/** SearchUserSchemas: POST /resources/v3alpha/user_schemas/_search (`userschema.read`); filters are ANDed. */
import { type AggregateRecord, type UserSchema, userSchemaIndexes } from '../../../../actors/index.js';
import {
  PlatformUserSchemas,
  UserSchemaFieldName,
  type UserSchemaSearchFilter,
  UserSchemaState,
} from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { maxChars, maxIds, specified, textCondition } from '../../shared/search.js';
import { toGetUserSchema } from './shared.js';

const states: Readonly<Record<number, string>> = { [UserSchemaState.ACTIVE]: 'active', [UserSchemaState.INACTIVE]: 'inactive' };

const SEARCH: SearchDeclaration<UserSchemaSearchFilter> = {
  table: userSchemaIndexes,
  sort: {
    [UserSchemaFieldName.UNSPECIFIED]: 'created',
    [UserSchemaFieldName.CREATION_DATE]: 'created',
    [UserSchemaFieldName.ID]: 'id',
    [UserSchemaFieldName.CHANGE_DATE]: 'changed',
    [UserSchemaFieldName.TYPE]: 'type',
    [UserSchemaFieldName.STATE]: 'state',
    [UserSchemaFieldName.REVISION]: 'revision',
  },
  rules: { type: [maxChars('type')], inIds: [maxIds()], state: [specified('state', 'state')] },
  condition({ filter: f }) {
    switch (f.case) {
      case 'type':
        return textCondition('type', f.value.method, f.value.type);
      case 'state':
        return states[f.value.state] === undefined ? 'none' : { index: 'state', equals: states[f.value.state]! };
      case 'inIds':
        return { ids: f.value.ids };
      default:
        return 'none';
    }
  },
};

export const searchUserSchemasRpc = defineRpc({
  method: PlatformUserSchemas.method.searchUserSchemas,
  permission: 'userschema.read',
  async handle(request, call) {
    const { details, rows } = await runSearch<UserSchemaSearchFilter, AggregateRecord<UserSchema>>(call, SEARCH, request);
    return { details, sortingColumn: request.sortingColumn, result: rows.map(toGetUserSchema) };
  },
});
