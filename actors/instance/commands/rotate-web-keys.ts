/**
 * Rotates an instance's signing keys: the published `next` key becomes active, the active key is
 * retired (still published), a new `next` key is added, and retired keys whose window is over
 * are removed. Conditional on the expected active key, so concurrent schedulers rotate once.
 */
import { alreadyExists, failedPrecondition } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import type { DomainEvent } from '../../events.js';
import { activeWebKey, addedEvent, expiredWebKeys, nextWebKey, webKeyEvent, webKeysChange, webKeysKind, type NewWebKey, type WebKeysChange } from '../web-keys.js';

export interface RotateWebKeys {
  /** The key published as the new `next`. */
  readonly next: NewWebKey;
  /** Rotate only while this key is active; another process that rotated first wins, nothing changes. */
  readonly ifActiveKid?: string;
  /** How long a retired key stays published: at least the longest token lifetime. */
  readonly retireAfterMs: number;
}

export const rotateWebKeys: CommandHandler<RotateWebKeys, WebKeysChange> = {
  load: (_c, ctx) => [ref(webKeysKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(webKeysKind, ctx.instanceId).record;
    const ring = record?.state;
    const reply = { reply: (outcome: Outcome) => webKeysChange(outcome, ctx.instanceId, record) };
    const active = activeWebKey(ring);
    if (active === undefined) throw failedPrecondition('web_key.not_initialized', 'the instance has no signing keys yet');
    if (c.ifActiveKid !== undefined && c.ifActiveKid !== active.kid) return { events: [], ...reply };
    if (ring?.keys.some((k) => k.kid === c.next.kid)) throw alreadyExists('web_key.exists', 'a web key with this id already exists');

    const events: DomainEvent[] = [webKeyEvent(ctx, { type: 'web_key.retired', payload: { kid: active.kid } })];
    const next = nextWebKey(ring);
    events.push(addedEvent(ctx, c.next));
    // Without a published next key (never by design) the new key has to sign at once.
    events.push(webKeyEvent(ctx, { type: 'web_key.activated', payload: { kid: next?.kid ?? c.next.kid } }));
    for (const key of expiredWebKeys(ring, ctx.now, c.retireAfterMs)) {
      events.push(webKeyEvent(ctx, { type: 'web_key.removed', payload: { kid: key.kid } }));
    }
    return { events, ...reply };
  },
};
