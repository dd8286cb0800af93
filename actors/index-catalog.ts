/**
 * Every index the stores keep (kernel/indexes.ts), gathered from the declarations beside the
 * aggregate kinds. Raise `version` with every change to a declaration: stores compare it with
 * the version their indexes were built for and rebuild them (LMDB at open, PostgreSQL by
 * `tessera migrate` and at open).
 */
import type { IndexCatalog } from './kernel/indexes.js';
import {
  executionIndexes,
  idpIndexes,
  membershipIndexes,
  smsProviderIndexes,
  smtpProviderIndexes,
  targetIndexes,
  userSchemaIndexes,
} from './instance/indexes.js';
import {
  appKeyIndexes,
  applicationIndexes,
  orgDomainIndexes,
  orgIndexes,
  projectGrantIndexes,
  projectIndexes,
  projectRoleIndexes,
  sessionIndexes,
  userGrantIndexes,
  userIndexes,
} from './organization/indexes.js';
import { instanceIndexes } from './system/indexes.js';

export const INDEX_CATALOG: IndexCatalog = {
  version: 7,
  tables: [
    instanceIndexes,
    orgIndexes,
    userIndexes,
    projectIndexes,
    applicationIndexes,
    projectGrantIndexes,
    sessionIndexes,
    idpIndexes,
    membershipIndexes,
    targetIndexes,
    userSchemaIndexes,
    smtpProviderIndexes,
    smsProviderIndexes,
    // Sub-row tables (entries inside one row), built from their parents' rows.
    orgDomainIndexes,
    userGrantIndexes,
    appKeyIndexes,
    projectRoleIndexes,
    executionIndexes,
  ],
};
