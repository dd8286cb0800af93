/**
 * Partial update of a user schema: type name (re-claimed), schema document (revision + 1),
 * possible authenticators. Unchanged values record nothing.
 */
import { notFound } from '../../kernel/errors.js';
import { ref, type CommandHandler, type Outcome } from '../../kernel/command.js';
import { detailsAfter, instanceOwner, type ResourceDetails } from '../../kernel/owner.js';
import type { UniqueClaim, UniqueRelease } from '../../kernel/ports.js';
import { USER_SCHEMA_TYPE_SCOPE, userSchemaKind, userSchemaTypeKey, type Authenticator, type JsonDocument } from '../user-schema.js';

export interface PatchUserSchema {
  readonly schemaId: string;
  readonly type?: string;
  readonly schema?: JsonDocument;
  readonly possibleAuthenticators?: readonly Authenticator[];
}

export const patchUserSchema: CommandHandler<PatchUserSchema, ResourceDetails> = {
  load: (c) => [ref(userSchemaKind, c.schemaId)],
  decide(loaded, c, ctx) {
    const record = loaded.get(userSchemaKind, c.schemaId).record;
    if (record === undefined) throw notFound('userschema.not_found', 'user schema not found');
    const current = record.state;
    const owner = instanceOwner(ctx.instanceId);
    const reply = (outcome: Outcome) => detailsAfter(outcome, { id: c.schemaId, record, owner });
    const payload: { type?: string; schema?: JsonDocument; possibleAuthenticators?: Authenticator[] } = {};
    const claims: UniqueClaim[] = [];
    const releases: UniqueRelease[] = [];
    if (c.type !== undefined && c.type !== current.type) {
      payload.type = c.type;
      if (userSchemaTypeKey(c.type) !== userSchemaTypeKey(current.type)) {
        claims.push({ scope: USER_SCHEMA_TYPE_SCOPE, value: userSchemaTypeKey(c.type), holder: c.schemaId });
        releases.push({ scope: USER_SCHEMA_TYPE_SCOPE, value: userSchemaTypeKey(current.type) });
      }
    }
    if (c.schema !== undefined && canonicalJson(c.schema) !== canonicalJson(current.schema)) payload.schema = c.schema;
    if (c.possibleAuthenticators !== undefined) {
      const wanted = [...new Set(c.possibleAuthenticators)];
      if (wanted.join(',') !== current.possibleAuthenticators.join(',')) payload.possibleAuthenticators = wanted;
    }
    if (Object.keys(payload).length === 0) return { events: [], reply };
    return {
      events: [{ aggregateType: userSchemaKind.type, aggregateId: c.schemaId, type: 'userschema.changed', owner, creator: ctx.creator, payload }],
      claims,
      releases,
      reply,
    };
  },
};

/** JSON with object keys sorted, so key order alone is not a change. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
