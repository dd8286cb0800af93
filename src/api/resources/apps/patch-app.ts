/**
 * PatchApp: PATCH /resources/v3alpha/apps/{id}. Absent fields stay unchanged; so do repeated
 * fields sent empty (a list cannot be cleared, only replaced by a non-empty one).
 */
import { z } from 'zod';
import { patchApp } from '../../../../actors/index.js';
import { PlatformApps, type PatchAppRequest } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, resourceName } from '../projects/shared.js';
import { apiPatchInput, oidcPatchInput } from './config-input.js';
import { requireApp } from './shared.js';

const input = z.object({
  id: resourceId,
  app: z.object({ name: resourceName.optional(), oidc: oidcPatchInput.optional(), api: apiPatchInput.optional() }).optional(),
});

export const patchAppRpc = defineRpc({
  method: PlatformApps.method.patchApp,
  permission: 'authenticated', // project.app.write, checked in the app's organization
  async handle(request, call) {
    const { id, app } = parseWith(input, flattenConfig(request));
    const current = await requireApp(call, id, 'project.app.write');
    const { orgId, projectId } = current.state;
    const patch = {
      appId: id,
      orgId,
      projectId,
      ...(app?.name === undefined ? {} : { name: app.name }),
      ...(app?.oidc === undefined ? {} : { oidc: app.oidc }),
      ...(app?.api === undefined ? {} : { api: app.api }),
    };
    const details = await call.services.actors.ask(toOrgActor(call, orgId), patchApp, patch, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});

function flattenConfig(request: PatchAppRequest) {
  const app = request.app;
  if (app === undefined) return { id: request.id, app: undefined };
  const { config } = app;
  return {
    id: request.id,
    app: { name: app.name, oidc: config.case === 'oidc' ? config.value : undefined, api: config.case === 'api' ? config.value : undefined },
  };
}
