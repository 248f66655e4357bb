import { defineConfig } from 'vitest/config';

/**
 * `npm run test:conformance`: the OpenID Foundation's Basic OP, Config OP and RP-Initiated Logout
 * plans, module by module, against the real server (test/conformance/, docs/oauth.md#openid-conformance).
 */
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
