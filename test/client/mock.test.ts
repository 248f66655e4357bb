/**
 * The typed client's suite (suite.ts) against the mock, `npm run mock` (started as
 * test/contract/prism.ts does). Apps, users, codes and the clock are the contract's examples; the
 * mock checks none of them. Where it cannot answer as the service, the case uses an exception of
 * targets.ts, and this file checks that the suite uses every one of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet, errors, jwtVerify } from 'jose';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { createIdentityClient, type IdentityClientOptions } from '../../client/index.js';
import type { components } from '../../generated/api.js';
import { startMock } from '../contract/prism.js';
import { clientSuite } from './suite.js';
import { MOCK_EXCEPTIONS, preferHeader, skipOnMock, usedExceptions, type SteeredException } from './targets.js';

const app = { clientId: 'Xw3Ah1pX9kA', clientSecret: '2mX8b5N0cYk1yHq7JtV4uL6rPz9sWe3aDf0gKi5oRnM', redirectUri: 'https://app.example/callback' };

/** The headers of a steered client: one `Prefer` for every call, or, for a list, a fetch that sends them one call after another. */
function steering(steer: SteeredException | readonly SteeredException[] | undefined): Partial<IdentityClientOptions> {
  if (steer === undefined) return {};
  if (typeof steer === 'string') return { headers: { Prefer: preferHeader(steer) } };
  const queue = steer.map(preferHeader);
  return {
    fetch: (input, init) => {
      const request = new Request(input, init);
      const prefer = queue.shift();
      if (prefer !== undefined) request.headers.set('Prefer', prefer);
      return fetch(request);
    },
  };
}

clientSuite(async () => {
  const mock = await startMock();
  return {
    baseUrl: mock.url,
    issuer: 'http://localhost:3000',
    app,
    // The mock tells no apps apart.
    otherApp: app,
    publicApp: { clientId: 'Pb7Kq2mW4sE', redirectUri: 'https://chess.example/spa/callback' },
    deviceApp: { clientId: 'Tv4Kq2mW8sE' },
    users: {
      withPicture: { id: 12, name: 'ada_l', email: 'ada@example.com', pfpTimestamp: 1733707565493, updatedAt: 1733707565 },
      // No example names grace-h's email, and no case reads it; updated_at is the defaultPicture example's.
      withoutPicture: { id: 13, name: 'grace-h', email: 'grace-h@example.com', updatedAt: 1733700000 },
    },
    code: () => Promise.resolve('Q0hBTkdFLU1FLXRoaXMtaXMtYW4tZXhhbXBsZS1jb2Rl'),
    decideDevice: () => Promise.resolve(),
    // The introspection example's iat.
    nowSeconds: () => 1733707565,
    advance: () => undefined,
    client: (options = {}, steer) => createIdentityClient({ baseUrl: mock.url, clientId: app.clientId, clientSecret: app.clientSecret, ...options, ...steering(steer) }),
    serverOnly: skipOnMock,
    close: () => mock.stop(),
  };
});

describe('the exceptions (targets.ts)', () => {
  const names = Object.keys(MOCK_EXCEPTIONS);
  const serverOnly = Object.values(MOCK_EXCEPTIONS).filter((e) => 'serverOnly' in e).length;
  it(`the suite uses each of the ${names.length} exceptions (${names.length - serverOnly} steered, ${serverOnly} server-only)`, () => {
    expect([...usedExceptions].sort()).toEqual(names.sort());
  });

  it("verifyIdToken is server-only for the clock: the contract's example ID token verifies with its example key set at its iat, and has expired since", async () => {
    type Op = { responses: Record<string, { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }> };
    const contract = yaml.load(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, Op>> };
    const json = (route: string, method: string) => contract.paths[route]![method]!.responses['200']!.content['application/json']!;
    const idToken = (json('/api/oauth/token', 'post').examples!.openid!.value as components['schemas']['TokenResponse']).id_token!;
    const keys = createLocalJWKSet(json('/.well-known/jwks.json', 'get').example as components['schemas']['Jwks']);
    const checks = { algorithms: ['RS256'], issuer: 'http://localhost:3000', audience: app.clientId };
    const { payload } = await jwtVerify(idToken, keys, { ...checks, currentDate: new Date(1733707565_000) });
    expect(payload).toEqual({ iss: 'http://localhost:3000', sub: '12', aud: app.clientId, azp: app.clientId, exp: 1733707565 + 600, iat: 1733707565, auth_time: 1733707500, nonce: 'n-0S6_WzA2Mj' });
    await expect(jwtVerify(idToken, keys, checks)).rejects.toBeInstanceOf(errors.JWTExpired);
  });
});
