/** The typed client (client/index.ts) against the real service, in-process, over HTTP. */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  createIdentityClient,
  createPkcePair,
  createState,
  IdentityServiceError,
  pictureUrl,
  pkceChallenge,
  PICTURE_SIZES,
  type PictureSize,
} from '../../client/index.js';
import { setPicture } from '../../src/pictures/pictures.js';
import { makeClient, makeCode, makeUser, startServer, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
let app: TestClient;
let userId: number;

beforeAll(async () => {
  t = await startServer();
  const user = await makeUser(t);
  userId = user.id;
  app = await makeClient(t, user.id);
});
afterAll(async () => t?.close());

function client(overrides: Partial<Parameters<typeof createIdentityClient>[0]> = {}) {
  return createIdentityClient({ baseUrl: t.baseUrl, clientId: app.clientId, clientSecret: app.clientSecret, ...overrides });
}

async function rejection(promise: Promise<unknown>): Promise<IdentityServiceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IdentityServiceError);
  return err as IdentityServiceError;
}

describe('exchangeToken', () => {
  it('exchanges a code with client_id and client_secret in the form body', async () => {
    const code = await makeCode(t, { userId, clientId: app.clientId, scope: 'userinfo email' });
    const token = await client().exchangeToken({ code });
    expect(token).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 600 });
  });

  it('exchanges a code with HTTP Basic client authentication', async () => {
    const code = await makeCode(t, { userId, clientId: app.clientId });
    const token = await client({ clientAuth: 'basic' }).exchangeToken({ code });
    expect(token.token_type).toBe('Bearer');
  });

  it('sends the PKCE verifier and the redirect_uri the code was issued for', async () => {
    const pkce = await createPkcePair();
    const code = await makeCode(t, { userId, clientId: app.clientId, redirectUri: app.redirectUri, codeChallenge: pkce.challenge });
    const token = await client().exchangeToken({ code, redirectUri: app.redirectUri, codeVerifier: pkce.verifier });
    expect(token.expires_in).toBe(600);
  });

  it("surfaces the server's message and status: wrong secret, reused code, wrong verifier", async () => {
    const code = await makeCode(t, { userId, clientId: app.clientId });
    const wrong = await rejection(client({ clientSecret: 'wrong' }).exchangeToken({ code }));
    expect({ status: wrong.status, message: wrong.message }).toEqual({ status: 401, message: 'Invalid client secret' });
    expect(wrong.body).toEqual({ message: 'Invalid client secret' });

    await client().exchangeToken({ code });
    const reused = await rejection(client().exchangeToken({ code }));
    expect({ status: reused.status, message: reused.message }).toEqual({
      status: 400,
      message: 'Authorization code has already been used; tokens issued from it are revoked',
    });

    const pkce = await createPkcePair();
    const other = await createPkcePair();
    const pkceCode = await makeCode(t, { userId, clientId: app.clientId, codeChallenge: pkce.challenge });
    const badVerifier = await rejection(client().exchangeToken({ code: pkceCode, codeVerifier: other.verifier }));
    expect(badVerifier.status).toBe(400);
    expect(badVerifier.message).toMatch(/verifier/i);
  });

  it('refuses to call without client credentials', async () => {
    const bare = createIdentityClient({ baseUrl: t.baseUrl });
    await expect(bare.exchangeToken({ code: 'x' })).rejects.toThrow(TypeError);
  });
});

describe('revokeToken, introspectToken, metadata', () => {
  it('introspects a live token (exp/iat in seconds), revokes it, and then introspects it as inactive', async () => {
    const user = await makeUser(t);
    const { access_token } = await client().exchangeToken({ code: await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'userinfo email' }) });
    const now = Math.floor(t.clock.now() / 1000);
    expect(await client().introspectToken(access_token)).toEqual({
      active: true,
      scope: 'userinfo email',
      client_id: app.clientId,
      token_type: 'Bearer',
      exp: now + 600,
      iat: now,
      sub: String(user.id),
      username: user.name,
    });
    await expect(client({ clientAuth: 'basic' }).revokeToken(access_token)).resolves.toBeUndefined();
    expect(await client({ clientAuth: 'basic' }).introspectToken(access_token)).toEqual({ active: false });
    // Nothing left to revoke is still a success (RFC 7009 2.2).
    await expect(client().revokeToken(access_token)).resolves.toBeUndefined();
    const whois = await rejection(client().whois(access_token));
    expect([whois.status, whois.message]).toEqual([401, 'Access token has been revoked']);
  });

  it("surfaces 403 for another app's token and 401 for a wrong secret", async () => {
    const { access_token } = await client().exchangeToken({ code: await makeCode(t, { userId, clientId: app.clientId }) });
    const other = await makeClient(t, userId);
    const forbidden = await rejection(client().revokeToken(access_token, { clientId: other.clientId, clientSecret: other.clientSecret }));
    expect([forbidden.status, forbidden.message, forbidden.body]).toEqual([403, 'This token was issued to another client', { message: 'This token was issued to another client' }]);
    const wrong = await rejection(client({ clientSecret: 'wrong' }).introspectToken(access_token));
    expect([wrong.status, wrong.message]).toEqual([401, 'Invalid client secret']);
    await expect(createIdentityClient({ baseUrl: t.baseUrl }).revokeToken('x')).rejects.toThrow(TypeError);
  });

  it('metadata returns the RFC 8414 document', async () => {
    const metadata = await client().metadata();
    expect(metadata.issuer).toBe(t.config.publicUrl);
    expect(metadata.revocation_endpoint).toBe(`${t.config.publicUrl}/api/oauth/revoke`);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });
});

describe('whois and userInfo', () => {
  it('whois returns the identity, with email only for the email scope', async () => {
    const user = await makeUser(t);
    const withEmail = await client().exchangeToken({ code: await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'userinfo email' }) });
    expect(await client().whois(withEmail.access_token)).toEqual({ id: user.id, name: user.name, email: user.email });
    const plain = await client().exchangeToken({ code: await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'userinfo' }) });
    expect(await client().whois(plain.access_token)).toEqual({ id: user.id, name: user.name });
  });

  it("whois surfaces 401 and 403 with the server's messages", async () => {
    const unknown = await rejection(client().whois('not-a-token'));
    expect({ status: unknown.status, message: unknown.message }).toEqual({ status: 401, message: 'Invalid access token' });
    const noScope = await client().exchangeToken({ code: await makeCode(t, { userId, clientId: app.clientId, scope: '' }) });
    const forbidden = await rejection(client().whois(noScope.access_token));
    expect({ status: forbidden.status, message: forbidden.message }).toEqual({ status: 403, message: 'Access token lacks the userinfo scope' });
  });

  it('userInfo returns exactly the user object the endpoint sends; 404 for an unknown id', async () => {
    const user = await makeUser(t);
    const raw = (await (await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`)).json()) as { user: unknown };
    const profile = await client().userInfo(user.id);
    expect(profile).toEqual(raw.user);
    expect(profile).toMatchObject({ id: user.id, name: user.name });
    const missing = await rejection(client().userInfo(999_999));
    expect({ status: missing.status, message: missing.message }).toEqual({ status: 404, message: 'User not found' });
  });
});

describe('pictures', () => {
  it('builds both address forms', () => {
    expect(pictureUrl('https://id.example.com/', { id: 12, pfpTimestamp: 1733707565493 }, 'large')).toBe(
      'https://id.example.com/pfp/large/12-1733707565493.webp',
    );
    expect(pictureUrl('https://id.example.com', { id: 13 }, 'small')).toBe('https://id.example.com/pfp/small/13.webp');
    expect(() => pictureUrl('https://id.example.com', { id: 0 }, 'small')).toThrow(RangeError);
    expect(() => pictureUrl('https://id.example.com', { id: 1 }, 'huge' as PictureSize)).toThrow(RangeError);
  });

  it('every size of both forms resolves to a WebP of the exact dimensions', async () => {
    const withPicture = await makeUser(t);
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#884422' } }).png().toBuffer();
    await setPicture(t.app.deps, withPicture.id, png);
    const profile = await client().userInfo(withPicture.id);
    expect(profile.pfpTimestamp).toEqual(expect.any(Number));
    const without = await client().userInfo((await makeUser(t)).id);
    expect(without.pfpTimestamp).toBeUndefined();

    for (const user of [profile, without]) {
      for (const size of Object.keys(PICTURE_SIZES) as PictureSize[]) {
        const url = client().pictureUrl(user, size);
        expect(url).toBe(`${t.baseUrl}/pfp/${size}/${user.pfpTimestamp === undefined ? user.id : `${user.id}-${user.pfpTimestamp}`}.webp`);
        const bytes = await client().fetchPicture(user, size);
        const meta = await sharp(bytes).metadata();
        expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
          format: 'webp',
          width: PICTURE_SIZES[size],
          height: PICTURE_SIZES[size],
        });
      }
    }
  });

  it('fetchPicture surfaces 404 for an old address', async () => {
    const missing = await rejection(client().fetchPicture({ id: userId, pfpTimestamp: 1 }, 'medium'));
    expect({ status: missing.status, message: missing.message }).toEqual({ status: 404, message: 'Profile picture not found' });
  });
});

describe('traditional flow helpers', () => {
  it('builds the authorize URL with state and an S256 challenge', async () => {
    const pkce = await createPkcePair();
    const state = createState();
    const url = new URL(
      authorizeUrl('https://id.example.com/', {
        clientId: 'Xw3Ah1pX9kA',
        redirectUri: 'https://app.example/callback',
        scope: ['userinfo', 'email'],
        state,
        codeChallenge: pkce.challenge,
      }),
    );
    expect(url.origin + url.pathname).toBe('https://id.example.com/oauth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'Xw3Ah1pX9kA',
      redirect_uri: 'https://app.example/callback',
      scope: 'userinfo email',
      state,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    });
    expect(client().authorizeUrl({ redirectUri: app.redirectUri, scope: 'userinfo', state: 's' })).toContain(`client_id=${app.clientId}`);
  });

  it('PKCE: verifier is 43 base64url characters; challenge is the RFC 7636 S256 of it', async () => {
    const pkce = await createPkcePair();
    expect(pkce.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkce.method).toBe('S256');
    // RFC 7636 appendix B.
    expect(await pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(createState()).not.toBe(createState());
  });
});

describe('OpenID Connect', () => {
  it('exchanges an openid code for an ID token too, reads UserInfo, the JWKS and the discovery document', async () => {
    const user = await makeUser(t);
    const tokens = await client().exchangeToken({ code: await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'openid profile' }) });
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'token_type']);
    expect(await client().oidcUserInfo(tokens.access_token)).toEqual({
      sub: String(user.id),
      preferred_username: user.name,
      picture: `${t.config.publicUrl}/pfp/large/${user.id}.webp`,
      updated_at: Math.floor(user.createdAt / 1000),
    });
    const { keys } = await client().jwks();
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as { kid: string };
    expect(keys.map((k) => k.kid)).toContain(header.kid);
    expect(await client().openIdConfiguration()).toEqual(await client().metadata());
    const plain = await client().exchangeToken({ code: await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'userinfo' }) });
    const refused = await rejection(client().oidcUserInfo(plain.access_token));
    expect([refused.status, refused.message]).toEqual([403, 'Access token lacks the openid scope']);
  });

  it('builds the authorize URL with nonce, prompt and max_age', () => {
    const url = new URL(authorizeUrl('https://id.example.com', { clientId: 'c', redirectUri: 'https://app.example/cb', scope: ['openid', 'profile'], state: 's', nonce: 'n', prompt: 'login', maxAge: 300 }));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'c',
      redirect_uri: 'https://app.example/cb',
      scope: 'openid profile',
      state: 's',
      nonce: 'n',
      prompt: 'login',
      max_age: '300',
    });
  });
});
