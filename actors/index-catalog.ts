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
  webKeyIndexes,
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
import { executionSetKind } from './instance/execution.js';
import { OUTBOX_TABLE } from './organization/outbox-message.js';

export const INDEX_CATALOG: IndexCatalog = {
  version: 8,
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
    webKeyIndexes,
    // Sub-row tables (entries inside one row), built from their parents' rows.
    orgDomainIndexes,
    userGrantIndexes,
    appKeyIndexes,
    projectRoleIndexes,
    executionIndexes,
  ],
};

/**
 * The tables whose rows both stores also list by table across instances (StoreAdapter
 * instancesWithRows), so a periodic pass visits the instances that have such a row instead of
 * every instance: the event executions' rescan (an instance's execution set) and the outbox's
 * scan (pending messages). Unlike the catalog this does not depend on how the store was opened.
 * Adding a table here needs a PostgreSQL migration that widens the partial index
 * `records_listed` (postgres-migrations.ts); test/store's plan check fails until it does.
 */
export const LISTED_TABLES: readonly string[] = [executionSetKind.table, OUTBOX_TABLE];
