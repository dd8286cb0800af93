import { defineConfig } from 'vitest/config';

// Native addons (lmdb, uWebSockets.js) are safest in child processes, not worker threads.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
