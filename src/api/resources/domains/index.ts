/** PlatformDomains: every RPC definition of the service. */
import { createDomainRpc } from './create-domain.js';
import { deleteDomainRpc } from './delete-domain.js';
import { generateDomainValidationRpc } from './generate-domain-validation.js';
import { getDomainRpc } from './get-domain.js';
import { patchDomainRpc } from './patch-domain.js';
import { searchDomainsRpc } from './search-domains.js';
import { setDomainAsPrimaryRpc } from './set-primary-domain.js';
import { validateDomainRpc } from './validate-domain.js';

export const domainRpcs = [
  createDomainRpc,
  getDomainRpc,
  patchDomainRpc,
  deleteDomainRpc,
  searchDomainsRpc,
  setDomainAsPrimaryRpc,
  generateDomainValidationRpc,
  validateDomainRpc,
] as const;
