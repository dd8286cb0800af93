/**
 * The malloc settings a node is started with (src/cli/malloc-settings.ts): given when the
 * environment has none, and never over an operator's own choice.
 */
import { describe, expect, it } from 'vitest';
import { MALLOC_SETTINGS, mallocSettingsFor } from '../../src/cli/malloc-settings.js';

describe('mallocSettingsFor', () => {
  it('gives the mmap threshold when the environment chose no malloc setting', () => {
    expect(mallocSettingsFor({ PATH: '/usr/bin', TESSERA_PORT: '8080', MALLOC: 'not glibc' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(mallocSettingsFor({})).toBe(MALLOC_SETTINGS);
  });

  it("leaves the operator's own settings alone, any MALLOC_ variable or GLIBC_TUNABLES, even empty", () => {
    expect(mallocSettingsFor({ MALLOC_ARENA_MAX: '2' })).toEqual({});
    expect(mallocSettingsFor({ MALLOC_MMAP_THRESHOLD_: '131072' })).toEqual({});
    expect(mallocSettingsFor({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).toEqual({});
    // `GLIBC_TUNABLES=` is the way to run with glibc's own defaults.
    expect(mallocSettingsFor({ GLIBC_TUNABLES: '' })).toEqual({});
    expect(mallocSettingsFor({ GLIBC_TUNABLES: undefined })).toBe(MALLOC_SETTINGS);
  });
});
