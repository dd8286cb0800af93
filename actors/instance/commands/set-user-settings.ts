/**
 * Changes the instance's user policies. Absent parts stay unchanged; a part equal to the
 * current value records nothing (a call that changes nothing succeeds without events).
 */
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { DomainEvent } from '../../events.js';
import { emitter } from '../../kernel/events.js';
import { userSettingsKind, userSettingsOf, type PasswordComplexity } from '../user-settings.js';

export interface SetUserSettings {
  readonly passwordComplexity?: Partial<PasswordComplexity>;
  readonly maxPasswordAttempts?: number;
  readonly maxOtpAttempts?: number;
  readonly usernameUniquePerInstance?: boolean;
  readonly ignoreUnknownUsernames?: boolean;
}

export const setUserSettings: CommandHandler<SetUserSettings, ResourceDetails> = {
  load: (_c, ctx) => [ref(userSettingsKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(userSettingsKind, ctx.instanceId).record;
    const current = userSettingsOf(record);
    const owner = instanceOwner(ctx.instanceId);
    const emit = emitter(userSettingsKind, ctx.instanceId, owner, ctx.creator);
    const events: DomainEvent[] = [];
    const complexity = { ...current.passwordComplexity, ...definedOnly(c.passwordComplexity ?? {}) };
    if (!sameComplexity(complexity, current.passwordComplexity)) events.push(emit({ type: 'instance.policy.password.complexity.set', payload: complexity }));
    if (c.maxPasswordAttempts !== undefined && c.maxPasswordAttempts !== current.maxPasswordAttempts) {
      events.push(emit({ type: 'instance.policy.lockout.set', payload: { maxPasswordAttempts: c.maxPasswordAttempts } }));
    }
    if (c.maxOtpAttempts !== undefined && c.maxOtpAttempts !== current.maxOtpAttempts) {
      events.push(emit({ type: 'instance.policy.lockout.otp.set', payload: { maxOtpAttempts: c.maxOtpAttempts } }));
    }
    if (c.usernameUniquePerInstance !== undefined && c.usernameUniquePerInstance !== current.usernameUniquePerInstance) {
      events.push(emit({ type: 'instance.policy.username.set', payload: { uniquePerInstance: c.usernameUniquePerInstance } }));
    }
    if (c.ignoreUnknownUsernames !== undefined && c.ignoreUnknownUsernames !== current.ignoreUnknownUsernames) {
      events.push(emit({ type: 'instance.policy.login.unknown_usernames.set', payload: { ignore: c.ignoreUnknownUsernames } }));
    }
    return { events, reply: (outcome: Outcome) => detailsAfter(outcome, { id: ctx.instanceId, record, owner }) };
  },
};

function definedOnly(partial: Partial<PasswordComplexity>): Partial<PasswordComplexity> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<PasswordComplexity>;
}

function sameComplexity(a: PasswordComplexity, b: PasswordComplexity): boolean {
  return (
    a.minLength === b.minLength &&
    a.hasUppercase === b.hasUppercase &&
    a.hasLowercase === b.hasLowercase &&
    a.hasNumber === b.hasNumber &&
    a.hasSymbol === b.hasSymbol
  );
}
