/**
 * PatchTarget: PATCH /resources/v3alpha/targets/{id}; absent fields stay unchanged, a patch
 * that changes nothing succeeds. `expirationSigningKey` rotates the signing key (returned once).
 */
import { z } from 'zod';
import { patchTarget } from '../../../../actors/index.js';
import { randomAlphanumeric } from '../../../crypto/random.js';
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireActionsFeature, SIGNING_KEY_LENGTH } from './shared.js';
import { parsePatchInput } from './target-input.js';

const input = z.object({ id: resourceId });

export const patchTargetRpc = defineRpc({
  method: PlatformActions.method.patchTarget,
  permission: 'action.target.write',
  async handle(request, call) {
    await requireActionsFeature(call);
    const { id } = parseWith(input, request);
    const { rotateGraceMs, ...changes } = parsePatchInput(request.target);
    const rotation = rotateGraceMs === undefined ? undefined : { signingKey: randomAlphanumeric(SIGNING_KEY_LENGTH), graceMs: rotateGraceMs };
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      patchTarget,
      { targetId: id, ...changes, ...(rotation === undefined ? {} : { rotation }) },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details), ...(rotation === undefined ? {} : { signingKey: rotation.signingKey }) };
  },
});
