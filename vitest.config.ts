import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // sharp and better-sqlite3 are native: separate processes are the safe pool for them.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
