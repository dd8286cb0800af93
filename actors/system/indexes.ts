/** Index declarations of the system tables (kernel/indexes.ts). */
import { defineIndexes, type TableIndexes } from '../kernel/indexes.js';
import { commonTerms } from '../organization/indexes.js';
import { instanceKind } from './instance.js';

export const instanceIndexes: TableIndexes = defineIndexes(instanceKind, () => '', {
  ...commonTerms(),
  name: (r) => r.state.name,
  name_ci: (r) => r.state.name.toLowerCase(),
  domain: (r) => r.state.domains,
  domain_ci: (r) => r.state.domains.map((d) => d.toLowerCase()),
});
