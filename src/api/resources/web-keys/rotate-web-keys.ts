/** RotateWebKeys: POST /resources/v3alpha/web_keys/_rotate — rotates the instance's keys now. */
import { validationFailed } from '../../../../actors/index.js';
import { PlatformWebKeys, WebKeyAlgorithm } from '../../../gen/platform/resources/webkey/v3alpha/webkey_service_pb.js';
import type { WebKeyService } from '../../../crypto/web-keys.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { domainAlgorithms } from './convert.js';

export function createRotateWebKeysRpc(webKeys: WebKeyService) {
  return defineRpc({
    method: PlatformWebKeys.method.rotateWebKeys,
    permission: 'iam.web_key.write',
    async handle(request, call) {
      const wire = request.rotation?.algorithm ?? WebKeyAlgorithm.UNSPECIFIED;
      const algorithm = domainAlgorithms[wire];
      if (algorithm === undefined && wire !== WebKeyAlgorithm.UNSPECIFIED) {
        throw validationFailed([{ field: 'rotation.algorithm', description: 'must be a defined algorithm' }]);
      }
      const change = await webKeys.rotate(call.instance.id, { algorithm, creator: call.caller.userId });
      return {
        details: toDetails(change.details),
        activeKeyId: change.activeKid ?? '',
        nextKeyId: change.nextKid ?? '',
        retiredKeyId: change.previousActiveKid ?? '',
      };
    },
  });
}
