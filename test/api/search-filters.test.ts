/** validateSearchFilters: one-of filters with declarative rules, every violation reported with its field path. */
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../actors/index.js';
import { type FilterRules, knownEnum, maxChars, maxIds, present, requiredChars, specified, validateSearchFilters } from '../../src/api/shared/search.js';
import { TextFilterMethod } from '../../src/gen/platform/resources/object/v3alpha/object_pb.js';
import { SessionSearchFilterSchema, SessionState, type SessionSearchFilter } from '../../src/gen/platform/resources/session/v3alpha/session_service_pb.js';
import { TargetSearchFilterSchema, type TargetSearchFilter } from '../../src/gen/platform/resources/action/v3alpha/action_service_pb.js';

function violationsOf(run: () => void): { field: string; description: string }[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return [...((error as AppError).violations ?? [])];
  }
  return [];
}

const sessionRules: FilterRules<SessionSearchFilter> = { inIds: [maxIds()], userId: [requiredChars('id')], creationDate: [present('creationDate')], state: [specified('state', 'state')] };
const targetRules: FilterRules<TargetSearchFilter> = { name: [maxChars('name', 5), knownEnum('method', TextFilterMethod)] };

describe('validateSearchFilters', () => {
  it('accepts filters that pass their rules, and an empty list', () => {
    const filters = [create(SessionSearchFilterSchema, { filter: { case: 'userId', value: { id: '42' } } }), create(SessionSearchFilterSchema, { filter: { case: 'state', value: { state: SessionState.ACTIVE } } })];
    expect(violationsOf(() => validateSearchFilters(filters, sessionRules))).toEqual([]);
    expect(violationsOf(() => validateSearchFilters([], sessionRules))).toEqual([]);
  });

  it('reports every violation with its index and field path', () => {
    const filters = [
      create(SessionSearchFilterSchema, {}),
      create(SessionSearchFilterSchema, { filter: { case: 'userId', value: { id: '' } } }),
      create(SessionSearchFilterSchema, { filter: { case: 'inIds', value: { ids: Array.from({ length: 1001 }, (_, i) => String(i)) } } }),
      create(SessionSearchFilterSchema, { filter: { case: 'creationDate', value: {} } }),
      create(SessionSearchFilterSchema, { filter: { case: 'state', value: { state: SessionState.UNSPECIFIED } } }),
    ];
    expect(violationsOf(() => validateSearchFilters(filters, sessionRules))).toEqual([
      { field: 'filters[0]', description: 'exactly one filter must be set' },
      { field: 'filters[1].userId.id', description: 'must be 1..200 characters' },
      { field: 'filters[2].inIds.ids', description: 'at most 1000 ids' },
      { field: 'filters[3].creationDate.creationDate', description: 'required' },
      { field: 'filters[4].state.state', description: 'must be a defined state' },
    ]);
  });

  it('runs every rule of a case (length limit and unknown enum number)', () => {
    const filters = [create(TargetSearchFilterSchema, { filter: { case: 'name', value: { name: 'toolong', method: 99 as TextFilterMethod } } })];
    expect(violationsOf(() => validateSearchFilters(filters, targetRules))).toEqual([
      { field: 'filters[0].name.name', description: 'must be at most 5 characters' },
      { field: 'filters[0].name.method', description: 'must be a defined value' },
    ]);
  });
});
