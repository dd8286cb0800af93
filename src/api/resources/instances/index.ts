/** PlatformInstances: every RPC definition of the service (system context). */
import { addInstanceDomainRpc } from './add-instance-domain.js';
import { bulkSetInstanceLimitsRpc } from './bulk-set-instance-limits.js';
import { createInstanceRpc } from './create-instance.js';
import { deleteInstanceRpc } from './delete-instance.js';
import { getInstanceRpc } from './get-instance.js';
import { listInstanceDomainsRpc } from './list-instance-domains.js';
import { patchInstanceRpc } from './patch-instance.js';
import { removeInstanceDomainRpc } from './remove-instance-domain.js';
import { searchInstancesRpc } from './search-instances.js';
import { setInstanceLimitsRpc } from './set-instance-limits.js';

export const instanceRpcs = [
  createInstanceRpc,
  getInstanceRpc,
  patchInstanceRpc,
  deleteInstanceRpc,
  searchInstancesRpc,
  addInstanceDomainRpc,
  removeInstanceDomainRpc,
  listInstanceDomainsRpc,
  setInstanceLimitsRpc,
  bulkSetInstanceLimitsRpc,
] as const;
