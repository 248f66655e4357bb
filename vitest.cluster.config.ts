import { defineConfig } from 'vitest/config';

/** `npm run test:cluster`: the load-balanced cluster suite alone (test/cluster/), one file, in order. */
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
