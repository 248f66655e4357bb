/**
 * The typed client's suite (suite.ts) against the mock, `npm run mock` (started as
 * test/contract/prism.ts does). Apps, users, codes and the clock are the contract's examples; the
 * mock checks none of them. Where it cannot answer as the service, the case uses an exception of
 * targets.ts, and this file checks that the suite uses every one of them.
 */
import { describe, expect, it } from 'vitest';
import { createIdentityClient } from '../../client/index.js';
import { startMock } from '../contract/prism.js';
import { clientSuite } from './suite.js';
import { MOCK_EXCEPTIONS, preferHeader, usedExceptions } from './targets.js';

clientSuite(async () => {
  const mock = await startMock();
  const app = { clientId: 'Xw3Ah1pX9kA', clientSecret: '2mX8b5N0cYk1yHq7JtV4uL6rPz9sWe3aDf0gKi5oRnM', redirectUri: 'https://app.example/callback' };
  return {
    baseUrl: mock.url,
    issuer: 'http://localhost:3000',
    app,
    // The mock tells no apps apart.
    otherApp: app,
    publicApp: { clientId: 'Pb7Kq2mW4sE', redirectUri: 'https://chess.example/spa/callback' },
    users: {
      withPicture: { id: 12, name: 'ada_l', email: 'ada@example.com', pfpTimestamp: 1733707565493, updatedAt: 1733707565 },
      // No example names grace-h's email, and no case reads it; updated_at is the defaultPicture example's.
      withoutPicture: { id: 13, name: 'grace-h', email: 'grace-h@example.com', updatedAt: 1733700000 },
    },
    code: () => Promise.resolve('Q0hBTkdFLU1FLXRoaXMtaXMtYW4tZXhhbXBsZS1jb2Rl'),
    // The introspection example's iat.
    nowSeconds: () => 1733707565,
    client: (options = {}, steer) =>
      createIdentityClient({
        baseUrl: mock.url,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        ...options,
        ...(steer === undefined ? {} : { headers: { Prefer: preferHeader(steer) } }),
      }),
    close: () => mock.stop(),
  };
});

describe('the exceptions (targets.ts)', () => {
  const names = Object.keys(MOCK_EXCEPTIONS);
  it(`the suite steers the mock with each of the ${names.length} exceptions`, () => {
    expect([...usedExceptions].sort()).toEqual(names.sort());
  });
});
