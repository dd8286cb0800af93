import { describe, expect, it } from 'vitest';
import { lazyModule } from '../../src/runtime/lazy-module.js';

describe('lazyModule', () => {
  it('starts the load on the first call and shares it with every later caller', async () => {
    let loads = 0;
    const load = lazyModule(async () => ({ id: (loads += 1) }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([load(), load()]);
    const c = await load();
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect(c).toBe(a);
  });

  it('starts a failed load again on the next call instead of failing for good', async () => {
    let loads = 0;
    const load = lazyModule(async () => {
      loads += 1;
      if (loads === 1) throw new Error('EMFILE: too many open files');
      return 'loaded';
    });
    await expect(load()).rejects.toThrow('EMFILE');
    await expect(load()).resolves.toBe('loaded');
    // Once loaded it stays loaded (the control: no third load).
    await expect(load()).resolves.toBe('loaded');
    expect(loads).toBe(2);
  });
});
