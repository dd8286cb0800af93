/**
 * CreateAppKey: POST /resources/v3alpha/apps/{appId}/keys → 201. Generates an RSA 2048 key pair
 * for a private_key_jwt app, stores the public key and returns the key file — the private key —
 * this once (reference facts §5.4).
 */
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { addAppKey, failedPrecondition, usesKeys } from '../../../../actors/index.js';
import { generateRsaSigningKey } from '../../../crypto/app-keys.js';
import { PlatformApps } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { toOrgActor } from '../projects/shared.js';
import { requireApp } from './shared.js';

/** Keys without an expiration date expire on 9999-01-01, as in the reference. */
const NO_EXPIRY = Date.UTC(9999, 0, 1);

const input = z.object({
  appId: resourceId,
  key: z.object({ expirationDate: z.object({ seconds: z.bigint(), nanos: z.number() }).optional() }).optional(),
});

export const createAppKeyRpc = defineRpc({
  method: PlatformApps.method.createAppKey,
  permission: 'authenticated', // project.app.write, checked in the app's organization
  created: true,
  async handle(request, call) {
    const { appId } = parseWith(input, request);
    const app = await requireApp(call, appId, 'project.app.write');
    // Checked again by the actor; here only to spare a key generation that cannot be stored.
    if (!usesKeys(app.state.config)) throw failedPrecondition('app.keys_not_used', 'only private_key_jwt applications have keys');
    const expiration = request.key?.expirationDate;
    const expiresAt = expiration === undefined ? NO_EXPIRY : timestampMs(expiration);
    const { orgId, projectId, clientId } = app.state;
    const keyId = call.services.actors.ids.next();
    const generated = await generateRsaSigningKey();
    const details = await call.services.actors.ask(
      toOrgActor(call, orgId),
      addAppKey,
      { appId, orgId, projectId, keyId, publicKey: generated.publicJwk, expiresAt },
      { creator: call.caller.userId },
    );
    return {
      details: toDetails(details),
      keyFile: { type: 'application', keyId, key: generated.privateKeyPem, appId, clientId },
    };
  },
});
