/**
 * Gives an instance its signing keys (reference facts §5.7: a new instance gets two keys, the
 * first active). Idempotent: with an active key and a next key it records nothing, so every
 * process may call it, and a lost race changes nothing. The edge generates both key pairs.
 */
import { alreadyExists } from '../../kernel/errors.js';
import { ref, type CommandHandler } from '../../kernel/command.js';
import type { DomainEvent } from '../../events.js';
import { activeWebKey, addedEvent, nextWebKey, webKeyEvent, webKeysChange, webKeysKind, type NewWebKey, type WebKeysChange } from '../web-keys.js';

export interface InitializeWebKeys {
  /** Becomes active when the instance has no key to activate. */
  readonly first: NewWebKey;
  /** Becomes the published `next` key when the instance has none. */
  readonly second: NewWebKey;
}

export const initializeWebKeys: CommandHandler<InitializeWebKeys, WebKeysChange> = {
  load: (_c, ctx) => [ref(webKeysKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(webKeysKind, ctx.instanceId).record;
    const ring = record?.state;
    for (const key of [c.first, c.second]) {
      if (ring?.keys.some((k) => k.kid === key.kid)) throw alreadyExists('web_key.exists', 'a web key with this id already exists');
    }
    const events: DomainEvent[] = [];
    let next = nextWebKey(ring);
    if (activeWebKey(ring) === undefined) {
      // An instance that lost its active key (never by design) promotes its published next key.
      if (next === undefined) events.push(addedEvent(ctx, c.first));
      events.push(webKeyEvent(ctx, { type: 'web_key.activated', payload: { kid: next?.kid ?? c.first.kid } }));
      next = undefined;
    }
    if (next === undefined) events.push(addedEvent(ctx, c.second));
    return { events, reply: (outcome) => webKeysChange(outcome, ctx.instanceId, record) };
  },
};
