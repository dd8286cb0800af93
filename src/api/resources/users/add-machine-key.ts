/**
 * AddMachineKey: POST /resources/v3alpha/users/{id}/keys, body {expirationDate?}
 * (`user.credential.write`; machine users only). Generates an RSA 2048 key pair here, records
 * the public key, and returns the key file (with the private key) only in this response:
 * {"type":"serviceaccount","keyId","key":"<PEM>","expirationDate","userId"}.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { addMachineKey } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { NEVER_EXPIRES, requireUserFor, userActor } from './shared.js';

const input = z.object({ id: resourceId });
const generateRsaKeyPair = promisify(generateKeyPair);

export const addMachineKeyRpc = defineRpc({
  method: PlatformUsers.method.addMachineKey,
  permission: 'authenticated',
  created: true,
  async handle(request, call) {
    const { id } = parseWith(input, request);
    const user = await requireUserFor(call, id, 'user.credential.write');
    const expiry = request.key?.expirationDate;
    const expiresAt = expiry === undefined ? NEVER_EXPIRES : timestampMs(expiry);
    const keyPair = await generateRsaKeyPair('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    const keyId = call.services.actors.ids.next();
    const details = await call.services.actors.ask(
      userActor(call, user),
      addMachineKey,
      { orgId: user.state.orgId, userId: id, keyId, publicKey: keyPair.publicKey, expiresAt },
      { creator: call.caller.userId },
    );
    const keyFile = {
      type: 'serviceaccount',
      keyId,
      key: keyPair.privateKey,
      expirationDate: new Date(expiresAt).toISOString(),
      userId: id,
    };
    return { details: toDetails(details), keyId, keyFile: JSON.stringify(keyFile) };
  },
});
