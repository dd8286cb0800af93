/**
 * The key codes of the LMDB indexes (catalog version 7; key layout: keys.ts): an index key is
 * [instanceId, code, term, id], where the code is one character standing for (table, index),
 * numbered in catalog order — instead of 'i', the table's name and the index's name (a user's
 * email_ci key: 36 -> 21 bytes before the term). The codes are a function of the catalog, whose
 * version the stored indexes are marked with (lmdb-index-build.ts): every process writing a
 * directory passes the same catalog, and a new version rebuilds every index key of an instance.
 *
 * Codes are U+0021–U+0060 (one UTF-8 byte: punctuation, digits, capitals), then from U+0100
 * on: never a lowercase letter, so never a table tag of keys.ts or the tag 'i' of the index keys
 * written before version 7.
 */
import type { IndexCatalog } from '../../actors/index.js';

/** Codes with one UTF-8 byte (U+0021–U+0060); later ones start at U+0100. */
const ONE_BYTE_CODES = 0x60 - 0x21 + 1;
const FIRST_WIDE_CODE = 0x100;

export interface IndexCodes {
  /** The key code of a table's index; undefined when the catalog has no such index (nothing is stored under it). */
  codeOf(table: string, index: string): string | undefined;
  /** The codes of every index of a table (its entries, cleared by a rebuild). */
  codesOfTable(table: string): readonly string[];
}

/** The n-th code (n >= 0). */
export function indexCode(n: number): string {
  return String.fromCodePoint(n < ONE_BYTE_CODES ? 0x21 + n : FIRST_WIDE_CODE + n - ONE_BYTE_CODES);
}

export function createIndexCodes(catalog: IndexCatalog): IndexCodes {
  const byTable = new Map<string, Map<string, string>>();
  let n = 0;
  for (const table of catalog.tables) {
    const codes = new Map<string, string>();
    for (const index of table.indexes) codes.set(index.name, indexCode(n++));
    byTable.set(table.table, codes);
  }
  return {
    codeOf: (table, index) => byTable.get(table)?.get(index),
    codesOfTable: (table) => [...(byTable.get(table)?.values() ?? [])],
  };
}
