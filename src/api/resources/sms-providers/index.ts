/** PlatformSMSProviders: every RPC definition of the service. */
import { activateSmsProviderRpc, deactivateSmsProviderRpc } from './change-sms-provider-activation.js';
import { createSmsProviderRpc } from './create-sms-provider.js';
import { deleteSmsProviderRpc } from './delete-sms-provider.js';
import { getSmsProviderRpc } from './get-sms-provider.js';
import { patchSmsProviderRpc } from './patch-sms-provider.js';
import { searchSmsProvidersRpc } from './search-sms-providers.js';
import { testSmsProviderRpc } from './test-sms-provider.js';

export const smsProviderRpcs = [
  createSmsProviderRpc,
  getSmsProviderRpc,
  patchSmsProviderRpc,
  deleteSmsProviderRpc,
  searchSmsProvidersRpc,
  activateSmsProviderRpc,
  deactivateSmsProviderRpc,
  testSmsProviderRpc,
] as const;
