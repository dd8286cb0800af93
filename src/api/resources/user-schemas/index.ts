/** PlatformUserSchemas: every RPC definition of the service. */
import { activateUserSchemaRpc, deactivateUserSchemaRpc } from './change-user-schema-state.js';
import { createUserSchemaRpc } from './create-user-schema.js';
import { deleteUserSchemaRpc } from './delete-user-schema.js';
import { getUserSchemaRpc } from './get-user-schema.js';
import { patchUserSchemaRpc } from './patch-user-schema.js';
import { searchUserSchemasRpc } from './search-user-schemas.js';

export const userSchemaRpcs = [
  createUserSchemaRpc,
  getUserSchemaRpc,
  patchUserSchemaRpc,
  deleteUserSchemaRpc,
  searchUserSchemasRpc,
  activateUserSchemaRpc,
  deactivateUserSchemaRpc,
] as const;
