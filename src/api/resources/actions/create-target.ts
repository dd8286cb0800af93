/** CreateTarget: POST /resources/v3alpha/targets → 201 with details and the signing key (shown only here). */
import { createTarget } from '../../../../actors/index.js';
import { randomAlphanumeric } from '../../../crypto/random.js';
import { PlatformActions } from '../../../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { requireActionsFeature, SIGNING_KEY_LENGTH } from './shared.js';
import { parseTargetInput } from './target-input.js';

export const createTargetRpc = defineRpc({
  method: PlatformActions.method.createTarget,
  permission: 'action.target.write',
  created: true,
  async handle(request, call) {
    await requireActionsFeature(call);
    const { endpoint, ...input } = parseTargetInput(request.target);
    const targetId = call.services.actors.ids.next();
    const signingKey = randomAlphanumeric(SIGNING_KEY_LENGTH);
    const details = await call.services.actors.ask(
      { kind: 'instance', instanceId: call.instance.id },
      createTarget,
      { targetId, ...input, ...endpoint, signingKey },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details), signingKey };
  },
});
