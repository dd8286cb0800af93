/**
 * The statements bench/scale.ts times as the "PostgreSQL floor" (bench/scale-floor.ts) are
 * the store's own: recorded from the store's code, not sent. No database, no timing asserted.
 */
import { describe, expect, it } from 'vitest';
import { orgIndexes } from '../../actors/index.js';
import { orgSearchStatement, positionCheckStatement } from '../../bench/scale-floor.js';
import { positionedPageQuery, positionedWalkWithSummariesQuery } from '../../src/store/postgres-indexes.js';
import { PREPARED, Q } from '../../src/store/postgres-queries.js';

describe('statement floor', () => {
  it('GET organization: the read cache position check, prepared', async () => {
    expect(await positionCheckStatement()('inst-a', 0)).toEqual({ text: Q.counter, params: ['inst-a'], options: PREPARED });
  });

  it('a first page without filter: the positioned page of the sort index, newest first, prepared', async () => {
    const byName = await orgSearchStatement({ limit: 10, sort: 'NAME' })('inst-a', 0);
    const expected = positionedPageQuery('inst-a', { table: orgIndexes.table, index: 'name', reverse: true, offset: 0, limit: 10 });
    expect(byName).toEqual({ text: expected.text, params: expected.params, options: PREPARED });
    // The sorting column reaches the statement: by creation date walks another index.
    const byDate = await orgSearchStatement({ limit: 10, sort: 'CREATION_DATE' })('inst-a', 0);
    expect(byDate.params[2]).toBe('created');
    expect(byDate.params).not.toEqual(byName.params);
  });

  it('a name filter: the positioned walk with summaries and the page rows, input i for request i', async () => {
    const names = ['Scale Org 000001', 'Scale Org 000002'];
    const statement = orgSearchStatement({ limit: 10, name: (i) => ({ method: 'EQUALS', name: names[i]! }) });
    const [first, second] = [await statement('inst-a', 0), await statement('inst-a', 1)];
    expect(first.text).toBe(positionedWalkWithSummariesQuery('inst-a', { table: orgIndexes.table, index: 'name', equals: 'x', limit: 1, rows: 1 }).text);
    expect(first.options).toEqual(PREPARED);
    expect(first.params).toContain(names[0]);
    expect(second.params).toContain(names[1]);
    expect(second.params).not.toContain(names[0]);
  });

  it('CONTAINS without a client for the term column: the SQL filter, planned per call, the pattern written into the text', async () => {
    const statement = await orgSearchStatement({ limit: 10, name: () => ({ method: 'CONTAINS', name: 'Org 00001' }) })('inst-a', 0);
    expect(statement.options).toEqual({ prepare: false });
    expect(statement.params).toEqual([]);
    expect(statement.text).toContain("LIKE E'%Org 00001%'");
  });
});
