/** PlatformIdentityProviders: every RPC definition of the service. */
import { deleteIdpRpc } from './delete-idp.js';
import { createForgeIdpRpc, getForgeIdpRpc, patchForgeIdpRpc } from './forge-idp-rpcs.js';
import { createForgeSelfHostedIdpRpc, getForgeSelfHostedIdpRpc, patchForgeSelfHostedIdpRpc } from './forge-self-hosted-idp-rpcs.js';
import { searchIdpsRpc } from './search-idps.js';

export const idpRpcs = [
  createForgeIdpRpc,
  patchForgeIdpRpc,
  getForgeIdpRpc,
  createForgeSelfHostedIdpRpc,
  patchForgeSelfHostedIdpRpc,
  getForgeSelfHostedIdpRpc,
  deleteIdpRpc,
  searchIdpsRpc,
] as const;
