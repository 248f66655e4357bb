/** The typed client's parts that need no service: addresses (pictures, authorize, logout), PKCE, state, and the calls it refuses to make. */
import { describe, expect, it } from 'vitest';
import { authorizeUrl, createIdentityClient, createPkcePair, createState, logoutUrl, pictureUrl, pkceChallenge, type PictureSize } from '../../client/index.js';

describe('pictureUrl', () => {
  it('builds both address forms', () => {
    expect(pictureUrl('https://id.example.com/', { id: 12, pfpTimestamp: 1733707565493 }, 'large')).toBe('https://id.example.com/pfp/large/12-1733707565493.webp');
    expect(pictureUrl('https://id.example.com', { id: 13 }, 'small')).toBe('https://id.example.com/pfp/small/13.webp');
    expect(() => pictureUrl('https://id.example.com', { id: 0 }, 'small')).toThrow(RangeError);
    expect(() => pictureUrl('https://id.example.com', { id: 1 }, 'huge' as PictureSize)).toThrow(RangeError);
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

  it('PKCE: verifier is 43 base64url characters; challenge is the RFC 7636 S256 of it', async () => {
    const pkce = await createPkcePair();
    expect(pkce.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkce.method).toBe('S256');
    expect(pkce.challenge).toBe(await pkceChallenge(pkce.verifier));
    // RFC 7636 appendix B.
    expect(await pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(createState()).not.toBe(createState());
  });
});

describe('logoutUrl', () => {
  const hint = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMiJ9.c2ln';

  it('builds the end_session_endpoint address with every parameter, in a fixed order, or with none', () => {
    expect(logoutUrl('https://id.example.com/', { idTokenHint: hint, postLogoutRedirectUri: 'https://app.example/signed-out?from=menu', state: 'a b&c', clientId: 'Xw3Ah1pX9kA' })).toBe(
      `https://id.example.com/oauth/logout?id_token_hint=${hint}&post_logout_redirect_uri=https%3A%2F%2Fapp.example%2Fsigned-out%3Ffrom%3Dmenu&state=a+b%26c&client_id=Xw3Ah1pX9kA`,
    );
    expect(logoutUrl('https://id.example.com')).toBe('https://id.example.com/oauth/logout');
    expect(logoutUrl('https://id.example.com//', {})).toBe('https://id.example.com/oauth/logout');
  });

  it("the client's: its client id unless the call names another; none without one", () => {
    const app = createIdentityClient({ baseUrl: 'https://id.example.com/', clientId: 'Xw3Ah1pX9kA' });
    expect(app.logoutUrl()).toBe('https://id.example.com/oauth/logout?client_id=Xw3Ah1pX9kA');
    expect(app.logoutUrl({ idTokenHint: hint, clientId: 'Pb7Kq2mW4sE' })).toBe(`https://id.example.com/oauth/logout?id_token_hint=${hint}&client_id=Pb7Kq2mW4sE`);
    expect(createIdentityClient({ baseUrl: 'https://id.example.com' }).logoutUrl({ state: 's' })).toBe('https://id.example.com/oauth/logout?state=s');
  });
});

describe('calls the client refuses to make', () => {
  // Nothing listens here: a call that reached the network would fail differently.
  const bare = createIdentityClient({ baseUrl: 'http://127.0.0.1:9' });
  const publicApp = createIdentityClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'Pb7Kq2mW4sE' });

  it('no client id: exchangeToken, refresh, revokeToken, introspectToken and authorizeUrl throw TypeError', async () => {
    await expect(bare.exchangeToken({ code: 'x' })).rejects.toThrow(new TypeError('exchangeToken needs clientId'));
    await expect(bare.refresh('x')).rejects.toThrow(new TypeError('refresh needs clientId'));
    await expect(bare.revokeToken('x')).rejects.toThrow(new TypeError('revokeToken needs clientId'));
    await expect(bare.introspectToken('x')).rejects.toThrow(new TypeError('introspectToken needs clientId'));
    expect(() => bare.authorizeUrl({ redirectUri: 'https://app.example/cb', scope: 'userinfo', state: 's' })).toThrow(new TypeError('authorizeUrl needs clientId'));
  });

  it('a public app (no secret) cannot introspect', async () => {
    await expect(publicApp.introspectToken('x')).rejects.toThrow(new TypeError('introspectToken needs clientId and clientSecret (a public app cannot introspect)'));
  });
});
