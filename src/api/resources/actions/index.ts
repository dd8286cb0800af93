/** PlatformActions: every RPC definition of the service. */
import { createTargetRpc } from './create-target.js';
import { deleteExecutionRpc } from './delete-execution.js';
import { deleteTargetRpc } from './delete-target.js';
import { getTargetRpc } from './get-target.js';
import { listAvailableExecutionFunctionsRpc } from './list-execution-functions.js';
import { listAvailableExecutionMethodsRpc } from './list-execution-methods.js';
import { listAvailableExecutionServicesRpc } from './list-execution-services.js';
import { patchTargetRpc } from './patch-target.js';
import { putExecutionRpc } from './put-execution.js';
import { searchExecutionsRpc } from './search-executions.js';
import { searchTargetsRpc } from './search-targets.js';

export const actionRpcs = [
  createTargetRpc,
  patchTargetRpc,
  deleteTargetRpc,
  getTargetRpc,
  searchTargetsRpc,
  putExecutionRpc,
  deleteExecutionRpc,
  searchExecutionsRpc,
  listAvailableExecutionFunctionsRpc,
  listAvailableExecutionMethodsRpc,
  listAvailableExecutionServicesRpc,
] as const;
