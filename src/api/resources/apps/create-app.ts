/**
 * CreateApp: POST /resources/v3alpha/apps → 201 with the generated client id and, when the auth
 * method uses one, the client secret — shown only in this response.
 */
import { z } from 'zod';
import { createApp, type AppConfig } from '../../../../actors/index.js';
import { randomSecret } from '../../../crypto/random.js';
import { PlatformApps, type CreateAppRequest } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { clientSecretDigest } from '../../../query/app-clients.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor, requireProject, resourceName } from '../projects/shared.js';
import { apiConfigInput, oidcConfigInput } from './config-input.js';

const input = z.object({
  app: z
    .object({ projectId: resourceId, name: resourceName, oidc: oidcConfigInput.optional(), api: apiConfigInput.optional() }, 'required')
    .refine((app) => app.oidc !== undefined || app.api !== undefined, { message: 'an oidc or api configuration is required', path: ['oidc'] }),
});

export const createAppRpc = defineRpc({
  method: PlatformApps.method.createApp,
  permission: 'authenticated', // project.app.write, checked in the project's organization
  created: true,
  async handle(request, call) {
    const { app } = parseWith(input, flattenConfig(request));
    const project = await requireProject(call, app.projectId, 'project.app.write');
    const config: AppConfig = app.oidc !== undefined ? { type: 'oidc', oidc: app.oidc } : { type: 'api', api: app.api! }; // refine: one is set
    const secret = randomSecret();
    const orgId = project.state.orgId;
    const appId = call.services.actors.ids.next();
    const created = await call.services.actors.ask(
      toOrgActor(call, orgId),
      createApp,
      { appId, orgId, projectId: app.projectId, name: app.name, config, secretDigest: clientSecretDigest(secret) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(created.details), clientId: created.clientId, clientSecret: created.secretStored ? secret : '' };
  },
});

/** The oneof as the JSON names the client wrote (`app.oidc` / `app.api`), for field paths. */
function flattenConfig(request: CreateAppRequest) {
  const app = request.app;
  if (app === undefined) return { app: undefined };
  const { config } = app;
  return {
    app: {
      projectId: app.projectId,
      name: app.name,
      oidc: config.case === 'oidc' ? config.value : undefined,
      api: config.case === 'api' ? config.value : undefined,
    },
  };
}
