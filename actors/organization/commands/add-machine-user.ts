/**
 * Adds a machine (service) user to an organization. Usernames are unique per organization,
 * and also instance-wide while the instance's username policy says so.
 */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import { detailsAfter, orgOwner, type ResourceDetails } from '../../kernel/owner.js';
import { userSettingsKind, userSettingsOf } from '../../instance/user-settings.js';
import { orgKind } from '../org.js';
import { userKind, type AccessTokenType } from '../user.js';
import { createUserEvents, requireOrg, usernameClaims } from '../user-rules.js';

export interface AddMachineUser {
  readonly userId: string;
  readonly orgId: string;
  readonly username: string;
  readonly name: string;
  readonly description: string;
  readonly accessTokenType: AccessTokenType;
}

export const addMachineUser: CommandHandler<AddMachineUser, ResourceDetails> = {
  load: (c, ctx) => [ref(userKind, c.userId), ref(orgKind, c.orgId), ref(userSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    requireOrg(loaded, c.orgId);
    if (loaded.get(userKind, c.userId).version > 0) throw alreadyExists('user.exists', 'the user already exists');
    const instanceWide = userSettingsOf(loaded.get(userSettingsKind, ctx.instanceId).record).usernameUniquePerInstance;
    const owner = orgOwner(c.orgId);
    const { userId: _userId, ...payload } = c;
    const event = createUserEvents(c.userId, owner, ctx);
    return {
      events: [event({ type: 'user.machine.added', payload: instanceWide ? { ...payload, usernameInstanceWide: true } : payload })],
      claims: usernameClaims(c.orgId, c.username, c.userId, instanceWide),
      reply: (outcome) => detailsAfter(outcome, { id: c.userId, record: undefined, owner }),
    };
  },
};
