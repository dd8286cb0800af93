/** Readiness checks: states named by stable codes, one run per second however often polled, changes reported once. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../actors/index.js';
import { createReadiness } from '../../src/http/readiness.js';

describe('createReadiness', () => {
  it('reports each check, down with its error code, and reports changes once', async () => {
    let now = 0;
    let up = true;
    let runs = 0;
    const changes: string[] = [];
    const readiness = createReadiness({
      now: () => now,
      checks: [
        {
          name: 'store',
          check: async () => {
            runs += 1;
            if (!up) throw new AppError('unavailable', 'store.unavailable', 'down', { detail: 'db.internal:5432 refused' });
          },
        },
      ],
      onChange: (name, state) => changes.push(`${name} ${state === 'up' ? 'up' : state.reason}`),
    });
    expect(await readiness()).toEqual({ ready: true, checks: { store: 'up' } });
    up = false;
    expect(await readiness()).toEqual({ ready: true, checks: { store: 'up' } }); // within the second: reused
    now = 1_000;
    const [a, b] = await Promise.all([readiness(), readiness()]);
    expect(a).toEqual({ ready: false, checks: { store: { status: 'down', reason: 'store.unavailable' } } });
    expect(b).toBe(a); // one run for concurrent polls
    now = 2_000;
    await readiness();
    up = true;
    now = 3_000;
    expect((await readiness()).ready).toBe(true);
    expect(runs).toBe(4);
    expect(changes).toEqual(['store store.unavailable', 'store up']);
  });

  it('names an error without a stable code check.failed, never its message', async () => {
    const readiness = createReadiness({ checks: [{ name: 'x', check: () => Promise.reject(new Error('password=secret')) }] });
    expect(JSON.stringify(await readiness())).not.toContain('secret');
    expect((await readiness()).checks.x).toEqual({ status: 'down', reason: 'check.failed' });
  });
});
