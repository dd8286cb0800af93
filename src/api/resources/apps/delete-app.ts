/** DeleteApp: DELETE /resources/v3alpha/apps/{id}; the client id stops working at once. */
import { z } from 'zod';
import { removeApp } from '../../../../actors/index.js';
import { PlatformApps } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireApp } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteAppRpc = defineRpc({
  method: PlatformApps.method.deleteApp,
  permission: 'authenticated', // project.app.delete, checked in the app's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { orgId, projectId } = (await requireApp(call, id, 'project.app.delete')).state;
    const details = await call.services.actors.ask(toOrgActor(call, orgId), removeApp, { appId: id, orgId, projectId }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
