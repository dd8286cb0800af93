/**
 * AppError codes are a union (actors/kernel/error-codes.ts): a misspelt code fails typecheck,
 * in a throw and in a table keyed by codes such as the login UI's refusals. The @ts-expect-error
 * lines are the assertions (tests are type-checked); the runtime part shows the good codes work.
 */
import { describe, expect, it } from 'vitest';
import { AppError, notFound, type ErrorCode } from '../../actors/index.js';

describe('ErrorCode', () => {
  it('accepts known codes and refuses misspelt ones at compile time', () => {
    const good = notFound('user.not_found', 'user not found');
    // @ts-expect-error a misspelt code
    const misspelt = notFound('user.notfound', 'user not found');
    const table: Partial<Record<ErrorCode, string>> = {
      'user.locked': 'userLocked',
      // @ts-expect-error a misspelt key in a refusal table
      'user.lockd': 'userLocked',
    };
    expect(good.code).toBe('user.not_found');
    expect(misspelt).toBeInstanceOf(AppError);
    expect(table[good.code]).toBeUndefined();
    expect(table['user.locked']).toBe('userLocked');
  });
});
