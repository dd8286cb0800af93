/**
 * PatchUser: PATCH /resources/v3alpha/users/{id}; absent fields stay unchanged and a patch
 * that changes nothing records nothing. `human` only for human users, `machine` only for
 * machine users (400 `user.not_human` / `user.not_machine`). A new unverified email address or
 * phone number gets a verification code by mail / SMS when the instance can deliver it.
 */
import { z } from 'zod';
import { patchUser, type PatchUser } from '../../../../actors/index.js';
import { PlatformUsers } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { description, emailAddress, enumNumber, language, optionalText, phoneNumber, requiredName, username } from './input.js';
import { parseAccessTokenType, parseGender, requireUserFor, userActor } from './shared.js';
import { sendCodesForChanges } from './contact-change-codes.js';

const input = z.object({
  id: resourceId,
  user: z
    .object({
      username: username.optional(),
      human: z
        .object({
          profile: z
            .object({
              givenName: requiredName.optional(),
              familyName: requiredName.optional(),
              displayName: optionalText.optional(),
              nickName: optionalText.optional(),
              preferredLanguage: language.optional(),
              gender: enumNumber.optional(),
            })
            .optional(),
          email: z.object({ address: emailAddress, isVerified: z.boolean().optional() }).optional(),
          phone: z.object({ number: z.union([z.literal(''), phoneNumber]), isVerified: z.boolean().optional() }).optional(),
        })
        .optional(),
      machine: z
        .object({ name: requiredName.optional(), description: description.optional(), accessTokenType: enumNumber.optional() })
        .optional(),
    })
    .optional(),
});

type Input = z.infer<typeof input>;

export const patchUserRpc = defineRpc({
  method: PlatformUsers.method.patchUser,
  permission: 'authenticated',
  async handle(request, call) {
    const parsed = parseWith(input, request);
    const user = await requireUserFor(call, parsed.id, 'user.write');
    const command = toCommand(user.state.orgId, parsed);
    const details = await call.services.actors.ask(userActor(call, user), patchUser, command, { creator: call.caller.userId });
    const sent = await sendCodesForChanges(call, user, command);
    return { details: toDetails(sent ?? details) };
  },
});

function toCommand(orgId: string, { id, user }: Input): PatchUser {
  const profile = user?.human?.profile;
  const email = user?.human?.email;
  const phone = user?.human?.phone;
  const machine = user?.machine;
  return {
    orgId,
    userId: id,
    ...(user?.username === undefined ? {} : { username: user.username }),
    ...(profile === undefined
      ? {}
      : {
          profile: definedOnly({
            givenName: profile.givenName,
            familyName: profile.familyName,
            displayName: profile.displayName,
            nickname: profile.nickName,
            preferredLanguage: profile.preferredLanguage,
            gender: profile.gender === undefined ? undefined : parseGender(profile.gender),
          }),
        }),
    ...(email === undefined ? {} : { email: definedOnly({ address: email.address, verified: email.isVerified }) }),
    ...(phone === undefined ? {} : { phone: definedOnly({ number: phone.number, verified: phone.isVerified }) }),
    ...(machine === undefined
      ? {}
      : {
          machine: definedOnly({
            name: machine.name,
            description: machine.description,
            accessTokenType: machine.accessTokenType === undefined ? undefined : parseAccessTokenType(machine.accessTokenType),
          }),
        }),
  };
}

/** Drops undefined entries (exactOptionalPropertyTypes-safe partials). */
function definedOnly<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
