/**
 * Removes retired keys whose retire window is over (every token they signed has expired), so
 * the key set stops publishing them. No expired key, no event.
 */
import { ref, type CommandHandler } from '../../kernel/command.js';
import { expiredWebKeys, webKeyEvent, webKeysChange, webKeysKind, type WebKeysChange } from '../web-keys.js';

export interface PruneWebKeys {
  /** How long a retired key stays published. */
  readonly retireAfterMs: number;
}

export const pruneWebKeys: CommandHandler<PruneWebKeys, WebKeysChange> = {
  load: (_c, ctx) => [ref(webKeysKind, ctx.instanceId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(webKeysKind, ctx.instanceId).record;
    const events = expiredWebKeys(record?.state, ctx.now, c.retireAfterMs).map((key) =>
      webKeyEvent(ctx, { type: 'web_key.removed', payload: { kid: key.kid } }),
    );
    return { events, reply: (outcome) => webKeysChange(outcome, ctx.instanceId, record) };
  },
};
