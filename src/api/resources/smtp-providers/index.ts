/** PlatformSMTPProviders: every RPC definition of the service. */
import { activateSmtpProviderRpc, deactivateSmtpProviderRpc } from './change-smtp-provider-activation.js';
import { createSmtpProviderRpc } from './create-smtp-provider.js';
import { deleteSmtpProviderRpc } from './delete-smtp-provider.js';
import { getSmtpProviderRpc } from './get-smtp-provider.js';
import { patchSmtpProviderRpc } from './patch-smtp-provider.js';
import { searchSmtpProvidersRpc } from './search-smtp-providers.js';
import { testSmtpProviderRpc } from './test-smtp-provider.js';

export const smtpProviderRpcs = [
  createSmtpProviderRpc,
  getSmtpProviderRpc,
  patchSmtpProviderRpc,
  deleteSmtpProviderRpc,
  searchSmtpProvidersRpc,
  activateSmtpProviderRpc,
  deactivateSmtpProviderRpc,
  testSmtpProviderRpc,
] as const;
