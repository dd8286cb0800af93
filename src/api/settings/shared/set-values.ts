/**
 * The seed's Set types at the edge (seed 000 "Settings value types"): exactly one of `set` or
 * `reset` (which must be true). A parsed value is a set value or a reset, ready for a
 * SettingsPatch. Limits: SetString 256, SetStringLong 2048, SetStringShort 64 characters.
 */
import { SET_STRING_LONG_MAX, SET_STRING_MAX, SET_STRING_SHORT_MAX, type FieldViolation } from '../../../../actors/index.js';

/** The oneof of a Set message as protobuf-es represents it. */
export type SetProperty<V> = { readonly case: 'set'; readonly value: V } | { readonly case: 'reset'; readonly value: boolean } | { readonly case: undefined; readonly value?: undefined };

export type ParsedSet<V> = { readonly kind: 'set'; readonly value: V } | { readonly kind: 'reset' };

export const SET_STRING_LIMITS = { string: SET_STRING_MAX, long: SET_STRING_LONG_MAX, short: SET_STRING_SHORT_MAX } as const;

/** Parses a SetString / SetStringLong / SetStringShort (`limit`), adding violations under `field`. */
export function parseSetString(property: SetProperty<string>, limit: keyof typeof SET_STRING_LIMITS, field: string, v: FieldViolation[]): ParsedSet<string> | undefined {
  const parsed = parseSet(property, field, v);
  if (parsed?.kind === 'set' && parsed.value.length > SET_STRING_LIMITS[limit]) {
    v.push({ field: `${field}.set`, description: `must be at most ${SET_STRING_LIMITS[limit]} characters` });
    return undefined;
  }
  return parsed;
}

/** Parses any Set type: `reset` must be true; neither member set is a violation. */
export function parseSet<V>(property: SetProperty<V>, field: string, v: FieldViolation[]): ParsedSet<V> | undefined {
  switch (property.case) {
    case 'set':
      return { kind: 'set', value: property.value };
    case 'reset':
      if (property.value !== true) {
        v.push({ field: `${field}.reset`, description: 'must be true' });
        return undefined;
      }
      return { kind: 'reset' };
    default:
      v.push({ field, description: 'exactly one of set or reset is required' });
      return undefined;
  }
}
