/** DeleteAppKey: DELETE /resources/v3alpha/apps/{appId}/keys/{id}; assertions signed with it stop verifying. */
import { z } from 'zod';
import { removeAppKey } from '../../../../actors/index.js';
import { PlatformApps } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireApp } from './shared.js';

const input = z.object({ appId: resourceId, id: resourceId });

export const deleteAppKeyRpc = defineRpc({
  method: PlatformApps.method.deleteAppKey,
  permission: 'authenticated', // project.app.write, checked in the app's organization
  async handle(request, call) {
    const { appId, id } = parseWith(input, request);
    const { orgId, projectId } = (await requireApp(call, appId, 'project.app.write')).state;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), removeAppKey, { appId, orgId, projectId, keyId: id }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
