/**
 * Index declarations of the instance-level tables (kernel/indexes.ts). Scope is the owning
 * organization for what an organization may own (IDPs, memberships), else ''.
 */
import { defineIndexes, defineSubIndexes, idTerm, numberTerm, type TableIndexes } from '../kernel/indexes.js';
import { commonTerms } from '../organization/indexes.js';
import { type ExecutionEntry, type ExecutionSet, executionSetKind, isEffective } from './execution.js';
import { idpKind } from './idp.js';
import { membershipKind } from './membership.js';
import { smsProviderKind } from './sms-provider.js';
import { smtpProviderKind } from './smtp-provider.js';
import { targetKind } from './target.js';
import { userSchemaKind } from './user-schema.js';
import { activeSince, activeWebKey, retiredSince, webKeysKind } from './web-keys.js';

const lower = (value: string): string => value.toLowerCase();

export const targetIndexes: TableIndexes = defineIndexes(targetKind, () => '', {
  ...commonTerms(),
  name: (r) => r.state.name,
  name_ci: (r) => lower(r.state.name),
  target_type: (r) => r.state.targetType,
  url: (r) => r.state.url,
  timeout: (r) => r.state.timeoutNanos,
  async: (r) => numberTerm(r.state.executionType === 'async' ? 1 : 0),
  interrupt: (r) => numberTerm(r.state.executionType === 'interrupt' ? 1 : 0),
});

export const userSchemaIndexes: TableIndexes = defineIndexes(userSchemaKind, () => '', {
  ...commonTerms(),
  type: (r) => r.state.type,
  type_ci: (r) => lower(r.state.type),
  // The wire enum orders ACTIVE < INACTIVE, like these names.
  state: (r) => r.state.state,
  revision: (r) => r.state.revision,
});

export const idpIndexes: TableIndexes = defineIndexes(idpKind, (r) => (r.meta.owner.type === 'org' ? r.meta.owner.id : ''), {
  ...commonTerms(),
  name: (r) => r.state.name,
  name_ci: (r) => lower(r.state.name),
});

export const membershipIndexes: TableIndexes = defineIndexes(membershipKind, (r) => (r.meta.owner.type === 'org' ? r.meta.owner.id : ''), {
  ...commonTerms(),
  // Membership ids are `<type>:<context>:<user>`: sorted as text, unlike snowflake ids.
  id: (r) => r.id,
  user: (r) => idTerm(r.state.userId),
  context_type: (r) => r.state.contextType,
  context: (r) => idTerm(r.state.contextId),
  role: (r) => r.state.roles,
});

export const smtpProviderIndexes: TableIndexes = defineIndexes(smtpProviderKind, () => '', {
  ...commonTerms(),
  description: (r) => r.state.description,
  description_ci: (r) => lower(r.state.description),
  host: (r) => r.state.host,
  host_ci: (r) => lower(r.state.host),
  sender_address: (r) => r.state.senderAddress,
  sender_address_ci: (r) => lower(r.state.senderAddress),
});

export const smsProviderIndexes: TableIndexes = defineIndexes(smsProviderKind, () => '', {
  ...commonTerms(),
  description: (r) => r.state.description,
  description_ci: (r) => lower(r.state.description),
  type: (r) => r.state.providerType,
});

/**
 * The instance's executions (one row per instance holds them all), as sub-rows: only those
 * with a target or an include (reference facts §3.3), which is what the search lists.
 */
export const executionIndexes: TableIndexes = defineSubIndexes<ExecutionSet, ExecutionEntry>(
  executionSetKind,
  { name: 'execution_entries', parent: 'summary' },
  (r) => Object.entries(r.state.entries).flatMap(([key, item]) => (isEffective(item) ? [{ key, item }] : [])),
  () => '',
  {
    created: (r) => r.item.createdAt,
    execution_id: (r) => r.key,
    type: (r) => r.item.condition.type,
    target: (r) => r.item.targets,
    include: (r) => r.item.includes,
  },
);

/** The web-key ring's index of the active key's activation time (kept across instances). */
export const WEB_KEY_ACTIVE_SINCE = 'active_since';
/** The web-key ring's index of its retired keys' retirement times (kept across instances). */
export const WEB_KEY_RETIRED_SINCE = 'retired_since';

/**
 * An instance's signing-key ring, by the times its keys' windows started: key maintenance reads
 * the rings whose active key is older than the rotation interval or whose retired key is past its
 * retire window, across instances (src/oidc/shared/web-key-maintenance.ts), not every ring.
 */
export const webKeyIndexes: TableIndexes = defineIndexes(
  webKeysKind,
  () => '',
  {
    [WEB_KEY_ACTIVE_SINCE]: (r) => {
      const active = activeWebKey(r.state);
      return active === undefined ? undefined : activeSince(active);
    },
    [WEB_KEY_RETIRED_SINCE]: (r) => r.state.keys.filter((key) => key.state === 'retired').map((key) => numberTerm(retiredSince(key))),
  },
  { acrossInstances: [WEB_KEY_ACTIVE_SINCE, WEB_KEY_RETIRED_SINCE] },
);
