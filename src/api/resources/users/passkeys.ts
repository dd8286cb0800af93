/**
 * Passkeys (WebAuthn) of a human user, through @simplewebauthn/server (src/crypto/webauthn.ts):
 * - StartPasskeyRegistration: POST /resources/v3alpha/users/{id}/passkeys → {details, passkeyId,
 *   publicKeyCredentialCreationOptions}: options for navigator.credentials.create with RP ID =
 *   the instance domain the request came in under (a discoverable credential, user
 *   verification required, the user's passkeys excluded). The challenge is kept 5 minutes (the
 *   node's clock) in the TTL store, as a SHA-256 digest, bound to the user and the passkey id.
 * - VerifyPasskeyRegistration: POST …/passkeys/{passkeyId}/_verify {publicKeyCredential, name}:
 *   takes the challenge (single use: a second try, another user's id or an expired one → 404
 *   `user.passkey.registration_not_found`), verifies the attestation (challenge, RP ID, origin =
 *   the issuer origin, user verification; 400 `user.passkey.invalid` naming
 *   `passkey.publicKeyCredential`) and records the credential id, COSE public key, counter and
 *   transports (`user.human.passkey.added`).
 * - ListPasskeys: GET …/passkeys → {passkeys: [{id, name, creationDate, lastUsedDate, transports}]}.
 * - RemovePasskey: DELETE …/passkeys/{passkeyId} (404 `user.passkey.not_found`).
 * `user.passkey.write` in the user's organization (listing: `user.read`), or the user themself.
 * Passkeys are not exported (seed 001: passwordless authentication is excluded).
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { z } from 'zod';
import {
  addPasskey,
  type AggregateRecord,
  detailsOf,
  failedPrecondition,
  type HumanUser,
  invalidArgument,
  notFound,
  removePasskey,
  type User,
  userKind,
} from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import {
  challengeDigest,
  creationOptions,
  newChallenge,
  registrationResponseSchema,
  verifyRegistration,
  WEBAUTHN_CHALLENGE_TTL_MS,
  type RelyingParty,
} from '../../../crypto/webauthn.js';
import { issuerFor } from '../../../http/issuer.js';
import { normalizeHost } from '../../../query/tenant.js';
import { loginNamesOf } from '../../../query/user-auth.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { readOrgOf, requireUserFor, userActor } from './shared.js';

/** TTL store table of pending registrations (key: the passkey id). */
const REGISTRATIONS = 'passkey_registrations';

interface PendingRegistration extends RelyingParty {
  readonly userId: string;
  readonly challengeDigest: string;
}

const actionInput = z.object({ id: resourceId });
const passkeyInput = z.object({ id: resourceId, passkeyId: resourceId });
const verifyInput = z.object({
  id: resourceId,
  passkeyId: resourceId,
  passkey: z.object(
    {
      publicKeyCredential: registrationResponseSchema,
      name: z.string().trim().max(200, 'must be at most 200 characters').default(''),
    },
    'required',
  ),
});

export const startPasskeyRegistrationRpc = defineRpc({
  method: PlatformUsers.method.startPasskeyRegistration,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(actionInput, request);
    const user = await requireHumanFor(call, id, 'user.passkey.write');
    const rp = relyingPartyOf(call);
    const passkeyId = call.services.actors.ids.next();
    const challenge = newChallenge();
    const loginName = loginNamesOf(user.state.username, await readOrgOf(call, user.state.orgId)).preferredLoginName;
    const options = await creationOptions({
      rpName: call.instance.name,
      rpId: rp.rpId,
      userId: id,
      userName: loginName,
      userDisplayName: user.state.profile.displayName || loginName,
      challenge,
      exclude: user.state.passkeys ?? [],
    });
    const pending: PendingRegistration = { userId: id, challengeDigest: challengeDigest(challenge), ...rp };
    await call.services.actors.ttl.put(call.instance.id, REGISTRATIONS, passkeyId, pending, call.services.clock.now() + WEBAUTHN_CHALLENGE_TTL_MS);
    return { details: toDetails(detailsOf(user)), passkeyId, publicKeyCredentialCreationOptions: toJsonObject(options) };
  },
});

export const verifyPasskeyRegistrationRpc = defineRpc({
  method: PlatformUsers.method.verifyPasskeyRegistration,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, passkeyId, passkey } = parseWith(verifyInput, request);
    const user = await requireHumanFor(call, id, 'user.passkey.write');
    const pending = (await call.services.actors.ttl.take(call.instance.id, REGISTRATIONS, passkeyId)) as PendingRegistration | undefined;
    if (pending === undefined || pending.userId !== id) {
      throw notFound('user.passkey.registration_not_found', 'no pending passkey registration with this id for the user (unknown, already used or expired: start a new one)');
    }
    const verified = await verifyRegistration(passkey.publicKeyCredential, pending);
    if (!verified.ok) {
      throw invalidArgument('user.passkey.invalid', `the passkey could not be verified: ${verified.reason}`, {
        violations: [{ field: 'passkey.publicKeyCredential', description: verified.reason }],
      });
    }
    const details = await call.services.actors.ask(
      userActor(call, user),
      addPasskey,
      { orgId: user.state.orgId, userId: id, passkey: { id: passkeyId, name: passkey.name === '' ? 'Passkey' : passkey.name, ...verified.credential } },
      { creator: call.caller.userId },
    );
    return { details: toDetails(details) };
  },
});

export const listPasskeysRpc = defineRpc({
  method: PlatformUsers.method.listPasskeys,
  permission: 'authenticated',
  async handle(request, call) {
    const { id } = parseWith(actionInput, request);
    const user = await requireHumanFor(call, id, 'user.read');
    return {
      passkeys: (user.state.passkeys ?? []).map((p) => ({
        id: p.id,
        name: p.name,
        creationDate: toTimestamp(p.createdAt),
        ...(p.lastUsedAt === 0 ? {} : { lastUsedDate: toTimestamp(p.lastUsedAt) }),
        transports: [...p.transports],
      })),
    };
  },
});

export const removePasskeyRpc = defineRpc({
  method: PlatformUsers.method.removePasskey,
  permission: 'authenticated',
  async handle(request, call) {
    const { id, passkeyId } = parseWith(passkeyInput, request);
    const user = await requireHumanFor(call, id, 'user.passkey.write');
    const details = await call.services.actors.ask(userActor(call, user), removePasskey, { orgId: user.state.orgId, userId: id, passkeyId }, { creator: call.caller.userId });
    return { details: toDetails(details) };
  },
});

/** The options as a plain JSON object (the Struct field). */
function toJsonObject(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

/** RP ID: the instance domain of the request's Host; origin: the issuer origin of the request. */
function relyingPartyOf(call: CallContext): RelyingParty {
  const issuer = issuerFor(call.services.config, { headers: { host: call.meta.host }, scheme: call.meta.scheme });
  const rpId = normalizeHost(call.meta.host);
  if (issuer === undefined || rpId === '') throw failedPrecondition('request.invalid_host', 'the request has no usable host for a passkey relying party');
  return { rpId, origin: new URL(issuer).origin };
}

/** The human user: the caller themself, or one the caller holds `permission` for. */
async function requireHumanFor(call: CallContext, id: string, permission: string): Promise<AggregateRecord<HumanUser>> {
  const user: AggregateRecord<User> | undefined = id === call.caller.userId ? await readOwned(call, userKind, id) : await requireUserFor(call, id, permission);
  if (user === undefined) throw notFound('user.not_found', 'user not found');
  if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'only human users have passkeys');
  return user as AggregateRecord<HumanUser>;
}
