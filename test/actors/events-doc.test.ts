/**
 * docs/events.md is generated from the event catalogue (actors/events.ts), and the catalogue is
 * typed by each aggregate's event union: these checks keep the doc, the catalogue and the unions
 * one source.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderEventsDoc } from '../../actors/index.js';
import { EVENT_CATALOGUE, orgEvents, type DomainEvent } from '../../actors/events.js';
import { foldRecord, recordedEvent } from '../../actors/kernel/aggregate.js';
import { ProgrammerError } from '../../actors/kernel/errors.js';
import { defineEvents, type EventEntries } from '../../actors/kernel/events.js';
import type { StoredEvent } from '../../actors/kernel/ports.js';
import { orgKind, type OrgEvent } from '../../actors/organization/org.js';

describe('docs/events.md', () => {
  it('is generated from the catalogue (run `npm run docs:events` after changing actors/events.ts)', () => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'events.md'), 'utf8');
    expect(onDisk).toBe(renderEventsDoc());
  });

  it('has one row per catalogued event, naming each payload field', () => {
    const doc = renderEventsDoc();
    const types = EVENT_CATALOGUE.flatMap((c) => Object.keys(c.events));
    expect(types.length).toBeGreaterThan(100);
    expect(new Set(types).size).toBe(types.length); // no event in two catalogues
    for (const type of types) expect(doc).toContain(`| \`${type}\` |`);
    expect(doc).toContain('`primaryDomain`: the generated domain');
  });
});

describe('the event unions and the catalogue', () => {
  it('type-check together: a missing or extra entry, a missing field, a wrong payload fail typecheck', () => {
    // Each @ts-expect-error below is a compile-time assertion (tests are type-checked): if the
    // line stopped being an error, typecheck would fail. The runtime part is trivial.
    const { 'org.removed': _removed, ...missingOne } = orgEvents.events;
    // @ts-expect-error an event of the union without an entry
    const incomplete: EventEntries<OrgEvent> = missingOne;
    // @ts-expect-error an entry for a type not in the union
    defineEvents<OrgEvent>()('org', 'org', { ...orgEvents.events, 'org.renamed': { emittedBy: '', payload: {} } });
    // @ts-expect-error a payload field without a description
    defineEvents<OrgEvent>()('org', 'org', { ...orgEvents.events, 'org.changed': { emittedBy: 'PatchOrganization', payload: {} } });
    const owner = { type: 'org', id: 'o1' } as const;
    const good: DomainEvent = { aggregateType: 'org', aggregateId: 'o1', owner, creator: '', type: 'org.changed', payload: { name: 'A' } };
    // @ts-expect-error decide cannot emit a payload of the wrong shape
    const badPayload: DomainEvent = { aggregateType: 'org', aggregateId: 'o1', owner, creator: '', type: 'org.changed', payload: { title: 'A' } };
    // @ts-expect-error nor an event on another aggregate's stream
    const badStream: DomainEvent = { aggregateType: 'user', aggregateId: 'o1', owner, creator: '', type: 'org.changed', payload: { name: 'A' } };
    // @ts-expect-error nor an uncatalogued type
    const unknownType: DomainEvent = { aggregateType: 'org', aggregateId: 'o1', owner, creator: '', type: 'org.renamed', payload: {} };
    expect([incomplete, good, badPayload, badStream, unknownType].length).toBe(5);
    expect(orgKind.events).toBe(orgEvents);
  });
});

describe('recordedEvent, where a stored event enters its union', () => {
  const stored = (type: string, aggregateType = 'org'): StoredEvent => ({
    aggregateType,
    aggregateId: 'o1',
    instanceId: 'i1',
    owner: { type: 'org', id: 'o1' },
    creator: '',
    version: 1,
    position: 1,
    createdAt: 0,
    type,
    payload: { name: 'Acme', primaryDomain: 'acme.localhost' },
  });

  it('passes a catalogued event of the stream, leaves out an unknown type, refuses another stream', () => {
    expect(recordedEvent(orgKind, stored('org.added'))?.type).toBe('org.added');
    expect(recordedEvent(orgKind, stored('org.renamed'))).toBeUndefined();
    expect(() => recordedEvent(orgKind, stored('org.added', 'user'))).toThrow(ProgrammerError);
  });

  it('folding an unknown type keeps the state and moves the version (as evolve did before)', () => {
    const added = foldRecord(orgKind, 'o1', undefined, [stored('org.added')]);
    const after = foldRecord(orgKind, 'o1', added, [{ ...stored('org.renamed'), version: 2, position: 2 }]);
    expect(after?.state).toEqual(added?.state);
    expect(after?.meta.version).toBe(2);
  });
});
