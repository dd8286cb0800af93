/**
 * POST /resources/v3alpha/users/{id}/_generate_secret → {clientId, clientSecret} (the secret
 * only here; the store keeps its SHA-256 digest) and _remove_secret (404 when none is set).
 * Machine users only; `user.credential.write`.
 */
import { z } from 'zod';
import { removeMachineSecret, setMachineSecret } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { randomSecret } from '../../../crypto/random.js';
import { tokenDigest } from '../../../crypto/token-digest.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });

export const generateMachineSecretRpc = defineRpc({
  method: PlatformUsers.method.generateMachineSecret,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.credential.write');
    const secret = randomSecret();
    const details = await call.services.actors.ask(
      userActor(call, user),
      setMachineSecret,
      { orgId: user.state.orgId, userId: id, digest: tokenDigest(secret) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details), clientId: user.state.username, clientSecret: secret };
  },
});

export const removeMachineSecretRpc = defineRpc({
  method: PlatformUsers.method.removeMachineSecret,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.credential.write');
    const details = await call.services.actors.ask(userActor(call, user), removeMachineSecret, { orgId: user.state.orgId, userId: id }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});
