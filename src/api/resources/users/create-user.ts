/**
 * CreateUser: POST /resources/v3alpha/users → 201. A human or a machine user in the ctx org
 * (else the instance default org). A human's password is checked against the instance's
 * complexity policy and hashed (argon2id) here, before the command.
 */
import { z } from 'zod';
import { addHumanUser, addMachineUser, type ResourceDetails } from '../../../../actors/index.js';
import { PlatformUsers, type HumanUser, type MachineUser } from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { hashPassword, requirePasswordComplexity } from '../../../crypto/password.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { targetOrgId } from '../../shared/owned.js';
import { readUserSettings } from '../../../query/user-auth.js';
import { parseWith } from '../../shared/validate.js';
import { description, emailAddress, enumNumber, language, missing, optionalText, password, phoneNumber, requiredName, username } from './input.js';
import { parseAccessTokenType, parseGender } from './shared.js';

const human = z.object({
  username: z.union([z.literal(''), username]),
  profile: z.object(
    {
      givenName: requiredName,
      familyName: requiredName,
      displayName: optionalText.optional(),
      nickName: optionalText,
      preferredLanguage: language,
      gender: enumNumber,
    },
    'required',
  ),
  email: z.object({ address: emailAddress, isVerified: z.boolean() }, 'required'),
  phone: z.object({ number: phoneNumber, isVerified: z.boolean() }).optional(),
  password: password.optional(),
  passwordChangeRequired: z.boolean(),
});

const machine = z.object({
  username,
  name: requiredName,
  description,
  accessTokenType: enumNumber,
});

export const createUserRpc = defineRpc({
  method: PlatformUsers.method.createUser,
  permission: 'authenticated',
  created: true,
  async handle(request, call) {
    const orgId = await targetOrgId(call);
    await call.require('user.write', orgId);
    const type = request.user?.type;
    if (type?.case === 'human') return { details: toDetails(await createHuman(call, orgId, type.value)) };
    if (type?.case === 'machine') return { details: toDetails(await createMachine(call, orgId, type.value)) };
    throw missing('user', 'exactly one of human or machine must be set');
  },
});

async function createHuman(call: CallContext, orgId: string, value: HumanUser): Promise<ResourceDetails> {
  const input = parseWith(human, value, 'user.human');
  let passwordHash = '';
  if (input.password !== undefined) {
    const settings = await readUserSettings(call.services.actors, call.instance.id);
    requirePasswordComplexity(input.password, settings.passwordComplexity, 'user.human.password');
    passwordHash = await hashPassword(input.password);
  }
  const userId = call.services.actors.ids.next();
  const displayName = input.profile.displayName === undefined || input.profile.displayName === '' ? {} : { displayName: input.profile.displayName };
  return call.services.actors.ask(
    { kind: 'org', instanceId: call.instance.id, orgId },
    addHumanUser,
    {
      userId,
      orgId,
      username: input.username === '' ? input.email.address : input.username,
      givenName: input.profile.givenName,
      familyName: input.profile.familyName,
      ...displayName,
      nickname: input.profile.nickName,
      preferredLanguage: input.profile.preferredLanguage,
      gender: parseGender(input.profile.gender),
      email: { address: input.email.address, verified: input.email.isVerified },
      ...(input.phone === undefined ? {} : { phone: { number: input.phone.number, verified: input.phone.isVerified } }),
      passwordHash,
      passwordChangeRequired: input.passwordChangeRequired,
    },
    { creator: call.caller.userId, minted: [userId] },
  );
}

async function createMachine(call: CallContext, orgId: string, value: MachineUser): Promise<ResourceDetails> {
  const input = parseWith(machine, value, 'user.machine');
  const userId = call.services.actors.ids.next();
  return call.services.actors.ask(
    { kind: 'org', instanceId: call.instance.id, orgId },
    addMachineUser,
    {
      userId,
      orgId,
      username: input.username,
      name: input.name,
      description: input.description,
      accessTokenType: parseAccessTokenType(input.accessTokenType),
    },
    { creator: call.caller.userId, minted: [userId] },
  );
}
