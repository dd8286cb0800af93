/**
 * GenerateAppSecret: POST /resources/v3alpha/apps/{id}/_generate_secret. The new secret is in
 * this response only; the previous one stops verifying at once.
 */
import { z } from 'zod';
import { setAppSecret } from '../../../../actors/index.js';
import { randomSecret } from '../../../crypto/random.js';
import { PlatformApps } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { clientSecretDigest } from '../../../query/app-clients.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireApp } from './shared.js';

const input = z.object({ id: resourceId });

export const generateAppSecretRpc = defineRpc({
  method: PlatformApps.method.generateAppSecret,
  permission: 'authenticated', // project.app.write, checked in the app's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const { orgId, projectId } = (await requireApp(call, id, 'project.app.write')).state;
    const secret = randomSecret();
    const details = await call.services.actors.ask(
      toOrgActor(call, orgId),
      setAppSecret,
      { appId: id, orgId, projectId, digest: clientSecretDigest(secret) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details), clientSecret: secret };
  },
});
