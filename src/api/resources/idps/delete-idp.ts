/** DeleteIDP: DELETE /resources/v3alpha/idps/{id} (any type), idp.delete in the IDP's defining context. */
import { z } from 'zod';
import { PlatformIdentityProviders } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { deleteIdpIn } from './idp-operations.js';

const input = z.object({ id: resourceId });

export const deleteIdpRpc = defineRpc({
  method: PlatformIdentityProviders.method.deleteIDP,
  permission: 'authenticated',
  handle(request, call) {
    const { id } = parseWith(input, request);
    return deleteIdpIn(call, id);
  },
});
