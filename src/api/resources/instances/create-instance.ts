/**
 * CreateInstance: POST /resources/v3alpha/instances → 201. Sets the instance up like first
 * run (setUpInstance); the admin's personal access token is in this response only.
 */
import { timestampMs, type Timestamp } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { validationFailed } from '../../../../actors/index.js';
import { PlatformInstances } from '../../../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { defineSystemRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith } from '../../shared/validate.js';
import type { SystemCallContext } from '../../system-auth.js';
import { setUpInstance, type InstanceAdminPlan } from './set-up-instance.js';
import { hostName, instanceName, refreshDirectory } from './shared.js';
import { ensureWebKeys } from '../../../crypto/web-keys.js';

const input = z.object({
  instance: z.object(
    {
      name: instanceName,
      domain: hostName,
      defaultOrgName: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
      admin: z
        .object({
          username: z.string().trim().min(1, 'required').max(200, 'must be at most 200 characters'),
          tokenExpirationDate: z
            .custom<Timestamp>((value) => typeof value === 'object' && value !== null, 'must be a timestamp')
            .transform((value) => timestampMs(value))
            .optional(),
        })
        .optional(),
    },
    'required',
  ),
});

type AdminInput = NonNullable<z.output<typeof input>['instance']['admin']>;

export const createInstanceRpc = defineSystemRpc({
  method: PlatformInstances.method.createInstance,
  permission: 'system.instance.write',
  created: true,
  async handle(request, call) {
    const { instance } = parseWith(input, request);
    const ids = call.services.actors.ids;
    const instanceId = ids.next();
    const orgId = ids.next();
    const admin = instance.admin === undefined ? undefined : adminPlan(instance.admin, call);
    const result = await setUpInstance(
      call.services.actors,
      {
        instanceId,
        orgId,
        name: instance.name,
        domain: instance.domain,
        orgName: instance.defaultOrgName ?? call.services.config.firstOrgName,
        features: call.services.config.defaultFeatures,
        ...(admin === undefined ? {} : { admin }),
      },
      call.creator,
    );
    // Keys exist before the first token or JWKS request (they would be created lazily otherwise).
    await ensureWebKeys(call.services.actors, instanceId, { algorithm: call.services.config.signingAlgorithm });
    await refreshDirectory(call, instanceId);
    return {
      details: toDetails(result.details),
      defaultOrgId: orgId,
      ...(admin === undefined ? {} : { adminUserId: admin.userId }),
      ...(result.admin === undefined ? {} : { adminToken: result.admin.token }),
    };
  },
});

/** The admin to create; checked before anything is written, so a bad expiry creates nothing. */
function adminPlan(admin: AdminInput, call: SystemCallContext): InstanceAdminPlan {
  const { config, clock, actors } = call.services;
  const now = clock.now();
  if (admin.tokenExpirationDate !== undefined && admin.tokenExpirationDate <= now) {
    throw validationFailed([{ field: 'instance.admin.tokenExpirationDate', description: 'must be in the future' }]);
  }
  return {
    userId: actors.ids.next(),
    username: admin.username,
    tokenExpiresAt: admin.tokenExpirationDate ?? now + config.adminTokenDays * 86_400_000,
    description: 'Created with the instance',
  };
}
