/**
 * CreateForgeSelfHostedIDP (POST /resources/v3alpha/idps/forge_self_hosted → 201),
 * PatchForgeSelfHostedIDP, GetForgeSelfHostedIDP (`/idps/forge_self_hosted/{id}`): the forge
 * variant with an issuer URL. Get and Patch check idp.read /
 * idp.write in the context the IDP is seen from (the ctx, else the IDP's owner).
 */
import { z } from 'zod';
import { PlatformIdentityProviders } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { createIdpIn, getIdpIn, patchIdpIn } from './idp-operations.js';

const idInput = z.object({ id: resourceId });

export const createForgeSelfHostedIdpRpc = defineRpc({
  method: PlatformIdentityProviders.method.createForgeSelfHostedIDP,
  permission: 'idp.write',
  created: true,
  handle: (request, call) => createIdpIn(call, 'forge_self_hosted', request.idp?.idp, request.idp?.config),
});

export const patchForgeSelfHostedIdpRpc = defineRpc({
  method: PlatformIdentityProviders.method.patchForgeSelfHostedIDP,
  permission: 'authenticated',
  handle(request, call) {
    const { id } = parseWith(idInput, request);
    return patchIdpIn(call, id, 'forge_self_hosted', request.idp?.idp, request.idp?.config);
  },
});

export const getForgeSelfHostedIdpRpc = defineRpc({
  method: PlatformIdentityProviders.method.getForgeSelfHostedIDP,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(idInput, request);
    return { idp: await getIdpIn(call, id, 'forge_self_hosted') };
  },
});
