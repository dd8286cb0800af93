/**
 * The one place a node learns that another node changed the store (the change feed, issue 7)
 * and drops what it holds in memory. Each cache registers a handler here once, at the
 * composition root; hot paths gain no checks and no awaits. Caches keyed by a version or
 * position they re-read on use (OIDC clients, UI locales) need no handler.
 */
import type { ChangedStream, Logger, StoreChange } from '../../actors/index.js';

export type ChangeHandler = (change: StoreChange) => void;

export class CacheInvalidations {
  private readonly handlers: { readonly name: string; readonly handle: ChangeHandler }[] = [];

  constructor(private readonly logger: Logger) {}

  register(name: string, handle: ChangeHandler): void {
    this.handlers.push({ name, handle });
  }

  /** Runs every handler; one failing never keeps the others from running. */
  dispatch(change: StoreChange): void {
    for (const { name, handle } of this.handlers) {
      try {
        handle(change);
      } catch (err) {
        this.logger.warn({ err, cache: name, instanceId: change.instanceId }, 'cache invalidation failed');
      }
    }
  }
}

/**
 * A handler for changes to aggregates of the given stream types: called with the matching
 * streams, or with undefined when the change does not list its streams (anything may have moved).
 */
export function onStreamTypes(types: readonly string[], handle: (instanceId: string, streams: readonly ChangedStream[] | undefined) => void): ChangeHandler {
  const wanted = new Set(types);
  return (change) => {
    if (change.streams === undefined) return handle(change.instanceId, undefined);
    const matching = change.streams.filter((s) => wanted.has(s.aggregateType));
    if (matching.length > 0) handle(change.instanceId, matching);
  };
}
