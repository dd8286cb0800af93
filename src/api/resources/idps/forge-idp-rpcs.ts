/**
 * CreateForgeIDP (POST /resources/v3alpha/idps/forge → 201), PatchForgeIDP (PATCH
 * /idps/forge/{id}), GetForgeIDP (GET /idps/forge/{id}). Get and Patch check idp.read /
 * idp.write in the context the IDP is seen from (the ctx, else the IDP's owner).
 */
import { z } from 'zod';
import { PlatformIdentityProviders } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { createIdpIn, getIdpIn, patchIdpIn } from './idp-operations.js';

const idInput = z.object({ id: resourceId });

export const createForgeIdpRpc = defineRpc({
  method: PlatformIdentityProviders.method.createForgeIDP,
  permission: 'idp.write',
  created: true,
  handle: (request, call) => createIdpIn(call, 'forge', request.idp?.idp, request.idp?.config),
});

export const patchForgeIdpRpc = defineRpc({
  method: PlatformIdentityProviders.method.patchForgeIDP,
  permission: 'authenticated',
  handle(request, call) {
    const { id } = parseWith(idInput, request);
    return patchIdpIn(call, id, 'forge', request.idp?.idp, request.idp?.config);
  },
});

export const getForgeIdpRpc = defineRpc({
  method: PlatformIdentityProviders.method.getForgeIDP,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(idInput, request);
    return { idp: await getIdpIn(call, id, 'forge') };
  },
});
