/**
 * The typed client's verifyIdToken (client/index.ts) against the real service's ID tokens: the
 * claims of a good token, and each refusal (nonce, audience, expiry, maxAge, a tampered signature).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentityClient, IdTokenError, type IdTokenErrorCode } from '../../client/index.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeClient, makeCode, makeUser, startServer, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
let user: UserRecord;
let app: TestClient;

beforeAll(async () => {
  t = await startServer();
  // Discovery's issuer and jwks_uri are the server's own address once it listens.
  t.config.publicUrl = t.baseUrl;
  user = await makeUser(t);
  app = await makeClient(t, user.id);
});
afterAll(async () => t?.close());

const client = (clientId = app.clientId, fetch?: typeof globalThis.fetch) => createIdentityClient({ baseUrl: t.baseUrl, clientId, clientSecret: app.clientSecret, fetch });
const seconds = (ms: number) => Math.floor(ms / 1000);

/** An ID token for `user` and `app` through the token endpoint (openid profile). */
async function idToken(options: { nonce?: string; authTime?: number } = {}): Promise<string> {
  const code = await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'openid profile', ...options });
  const { id_token } = await client().exchangeToken({ code });
  return id_token!;
}

async function refusal(promise: Promise<unknown>): Promise<[IdTokenErrorCode, string]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IdTokenError);
  return [(err as IdTokenError).code, (err as IdTokenError).message];
}

describe('verifyIdToken', () => {
  it('resolves with the claims of a good token, with its nonce and a recent enough sign-in', async () => {
    const now = seconds(t.clock.now());
    const token = await idToken({ nonce: 'n-1', authTime: t.clock.now() - 60_000 });
    expect(await client().verifyIdToken(token, { nonce: 'n-1', maxAge: 120 })).toEqual({
      iss: t.baseUrl,
      sub: String(user.id),
      aud: app.clientId,
      azp: app.clientId,
      exp: now + 600,
      iat: now,
      auth_time: now - 60,
      nonce: 'n-1',
      name: user.name,
      preferred_username: user.name,
      profile: `${t.baseUrl}/users/${user.id}`,
      picture: `${t.baseUrl}/pfp/large/${user.id}.webp`,
      updated_at: seconds(user.profileUpdatedAt),
    });
  });

  it('fetches discovery and the keys once per client', async () => {
    const fetched: string[] = [];
    const counting: typeof globalThis.fetch = (input, init) => {
      fetched.push(new URL(input instanceof Request ? input.url : input).pathname);
      return fetch(input, init);
    };
    const rp = client(app.clientId, counting);
    const token = await idToken();
    await rp.verifyIdToken(token);
    await rp.verifyIdToken(token);
    expect(fetched).toEqual(['/.well-known/openid-configuration', '/.well-known/jwks.json']);
  });

  it('refuses another nonce, and a token without the nonce it expects', async () => {
    expect(await refusal(client().verifyIdToken(await idToken({ nonce: 'n-1' }), { nonce: 'n-2' }))).toEqual(['nonce', "The ID token's nonce is not the one sent"]);
    expect(await refusal(client().verifyIdToken(await idToken(), { nonce: 'n-1' }))).toEqual(['nonce', "The ID token's nonce is not the one sent"]);
  });

  it("refuses another app's token", async () => {
    const other = await makeClient(t, user.id);
    expect(await refusal(client(other.clientId).verifyIdToken(await idToken()))).toEqual(['audience', "The ID token's aud is not this client"]);
  });

  it('refuses an expired token, and a sign-in older than maxAge', async () => {
    t.clock.advance(-11 * 60_000);
    const old = await idToken();
    t.clock.advance(11 * 60_000);
    expect(await refusal(client().verifyIdToken(old))).toEqual(['expired', 'The ID token has expired']);
    const token = await idToken({ authTime: t.clock.now() - 3600_000 });
    expect(await refusal(client().verifyIdToken(token, { maxAge: 600 }))).toEqual(['auth_time', 'The sign-in is older than maxAge']);
    expect((await client().verifyIdToken(token, { maxAge: 3700 })).auth_time).toBe(seconds(t.clock.now()) - 3600);
  });

  it('refuses a tampered signature, a tampered payload and what is not a JWT', async () => {
    const [header, payload, signature] = (await idToken()).split('.') as [string, string, string];
    // A character in the middle: the last one carries padding bits a decoder may ignore.
    const middle = signature.length >> 1;
    const flipped = `${signature.slice(0, middle)}${signature[middle] === 'A' ? 'B' : 'A'}${signature.slice(middle + 1)}`;
    const badSignature = ['signature', "The ID token's signature does not verify with the service's keys"];
    expect(await refusal(client().verifyIdToken(`${header}.${payload}.${flipped}`))).toEqual(badSignature);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: String(user.id + 1) })).toString('base64url');
    expect(await refusal(client().verifyIdToken(`${header}.${forged}.${signature}`))).toEqual(badSignature);
    expect(await refusal(client().verifyIdToken('not-a-jwt'))).toEqual(['malformed', 'Not an RS256 ID token']);
  });
});
