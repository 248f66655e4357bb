/**
 * The typed client's suite (client/index.ts): every operation it wraps and the errors it
 * surfaces, with the same assertions against the real service (server.test.ts) and the mock
 * (mock.test.ts). A target brings its own apps, users, codes and clock; where the mock cannot
 * answer as the service, the case names its exception in targets.ts (MOCK_EXCEPTIONS): it steers
 * the mock with a `Prefer` header, or, server-only, skips on the mock.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkcePair, IdentityServiceError, IdTokenError, PICTURE_SIZES, type PictureSize } from '../../client/index.js';
import type { SteeredException, Target, TargetUser } from './targets.js';

const TOKEN = { access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 600 };

type Failure = [status: number, message: string, body: unknown, oauthError: string | undefined];

/** The IdentityServiceError a call rejects with, as [status, message, body, oauthError]. */
async function failure(promise: Promise<unknown>): Promise<Failure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IdentityServiceError);
  const { status, message, body, oauthError } = err as IdentityServiceError;
  return [status, message, body, oauthError];
}

/**
 * What the service answers with `message` and `status`: the error, its message, the body as sent,
 * and the OAuth error code of its WWW-Authenticate challenge (none: no challenge, or one without).
 */
const error = (status: number, message: string, oauthError?: 'invalid_token' | 'insufficient_scope'): Failure => [status, message, { message }, oauthError];

/** A failure of the token, revocation or introspection endpoint: the body's `error` beside `message` is the oauthError. */
const oauthFailure = (status: number, oauthError: string, message: string): Failure => [status, message, { message, error: oauthError, error_description: message }, oauthError];

const decodeJwtPart = (jwt: string, part: 0 | 1): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[part]!, 'base64url').toString()) as Record<string, unknown>;

export function clientSuite(start: () => Promise<Target>): void {
  let t: Target;
  let ada: TargetUser;
  let grace: TargetUser;
  beforeAll(async () => {
    t = await start();
    ({ withPicture: ada, withoutPicture: grace } = t.users);
  });
  afterAll(async () => t?.close());

  /** A token of the confidential app for `user` with `scope`. */
  async function token(user: TargetUser, scope: string): Promise<string> {
    return (await t.client().exchangeToken({ code: await t.code({ user, scope }) })).access_token;
  }

  describe('exchangeToken', () => {
    it('a confidential app: client_id and client_secret in the form body', async () => {
      const code = await t.code({ user: ada, scope: 'userinfo email' });
      expect(await t.client().exchangeToken({ code })).toEqual(TOKEN);
    });

    it('a confidential app: HTTP Basic client authentication', async () => {
      const code = await t.code({ user: ada, scope: 'userinfo' });
      expect(await t.client({ clientAuth: 'basic' }).exchangeToken({ code })).toEqual(TOKEN);
    });

    it('sends the PKCE verifier and the redirect_uri the code was issued for', async () => {
      const pkce = await createPkcePair();
      const code = await t.code({ user: ada, scope: 'userinfo', redirectUri: t.app.redirectUri, codeChallenge: pkce.challenge });
      expect(await t.client().exchangeToken({ code, redirectUri: t.app.redirectUri, codeVerifier: pkce.verifier })).toEqual(TOKEN);
    });

    it('a public app: client_id and the PKCE verifier, no secret', async () => {
      const pkce = await createPkcePair();
      const { clientId, redirectUri } = t.publicApp;
      const code = await t.code({ user: ada, scope: 'userinfo', publicApp: true, redirectUri, codeChallenge: pkce.challenge });
      const app = t.client({ clientId, clientSecret: undefined });
      expect(await app.exchangeToken({ code, redirectUri, codeVerifier: pkce.verifier })).toEqual(TOKEN);
    });

    it('the openid scope adds an ID token for the app, signed with a key of the JWKS', async () => {
      const code = await t.code({ user: ada, scope: 'openid profile' });
      const tokens = await t.client(undefined, 'openidToken').exchangeToken({ code });
      expect(tokens).toEqual({ ...TOKEN, id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
      const header = decodeJwtPart(tokens.id_token!, 0);
      expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
      expect(decodeJwtPart(tokens.id_token!, 1)).toMatchObject({ iss: t.issuer, sub: String(ada.id), aud: t.app.clientId, azp: t.app.clientId });
      const { keys } = await t.client().jwks();
      expect(keys.find((k) => k.kid === header.kid)).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
    });
  });

  describe('exchangeToken errors: IdentityServiceError with the status, message, body and oauthError', () => {
    it('an unknown client: 401', async () => {
      const code = await t.code({ user: ada, scope: 'userinfo' });
      const call = t.client({ clientId: 'no-such-app' }, 'unknownClient').exchangeToken({ code });
      expect(await failure(call)).toEqual(oauthFailure(401, 'invalid_client', 'Unknown client'));
    });

    it('a wrong secret: 401', async () => {
      const code = await t.code({ user: ada, scope: 'userinfo' });
      const call = t.client({ clientSecret: 'wrong' }, 'wrongSecret').exchangeToken({ code });
      expect(await failure(call)).toEqual(oauthFailure(401, 'invalid_client', 'Invalid client secret'));
    });

    it('a secret for a public app: 401', async () => {
      const pkce = await createPkcePair();
      const { clientId, redirectUri } = t.publicApp;
      const code = await t.code({ user: ada, scope: 'userinfo', publicApp: true, redirectUri, codeChallenge: pkce.challenge });
      const call = t.client({ clientId, clientSecret: 'a-secret' }, 'publicWithSecret').exchangeToken({ code, redirectUri, codeVerifier: pkce.verifier });
      expect(await failure(call)).toEqual(oauthFailure(401, 'invalid_client', 'A public app has no client secret'));
    });

    it('a code redeemed twice: 400', async () => {
      const code = await t.code({ user: ada, scope: 'userinfo' });
      await t.client().exchangeToken({ code });
      const again = t.client(undefined, 'codeReused').exchangeToken({ code });
      expect(await failure(again)).toEqual(oauthFailure(400, 'invalid_grant', 'Authorization code has already been used; tokens issued from it are revoked'));
    });

    it('a verifier for a code issued without a challenge: 400', async () => {
      const code = await t.code({ user: ada, scope: 'userinfo' });
      const call = t.client(undefined, 'pkceDowngrade').exchangeToken({ code, codeVerifier: (await createPkcePair()).verifier });
      expect(await failure(call)).toEqual(oauthFailure(400, 'invalid_grant', 'code_verifier was sent, but this code was issued without a code_challenge'));
    });

    it('a verifier that does not match the challenge: 400', async () => {
      const pkce = await createPkcePair();
      const code = await t.code({ user: ada, scope: 'userinfo', codeChallenge: pkce.challenge });
      const call = t.client(undefined, 'wrongVerifier').exchangeToken({ code, codeVerifier: (await createPkcePair()).verifier });
      expect(await failure(call)).toEqual(oauthFailure(400, 'invalid_grant', 'code_verifier does not match the code_challenge'));
    });
  });

  describe('refresh', () => {
    const REFRESHED = { ...TOKEN, refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) };
    /** The refresh token of a code granted `offline_access` (the app may use the refresh grant). */
    async function refreshToken(scope = 'userinfo offline_access'): Promise<string> {
      const tokens = await t.client(undefined, 'refreshToken').exchangeToken({ code: await t.code({ user: ada, scope }) });
      expect(tokens).toEqual(REFRESHED);
      return tokens.refresh_token!;
    }

    it('a code granted offline_access answers a refresh token; refresh() answers a new access token and a new refresh token; the spent one again: 400', async () => {
      const first = await refreshToken();
      const renewed = await t.client(undefined, 'refreshToken').refresh(first);
      expect(renewed).toEqual(REFRESHED);
      // HTTP Basic works as for the exchange, and the newest token is the one to keep.
      expect(await t.client({ clientAuth: 'basic' }, 'refreshToken').refresh(renewed.refresh_token)).toEqual(REFRESHED);
      const again = t.client(undefined, 'refreshReused').refresh(first);
      expect(await failure(again)).toEqual(oauthFailure(400, 'invalid_grant', 'Refresh token has already been used; every token of this sign-in is revoked'));
    });

    it('a public app: client_id alone, the refresh token bound to it', async () => {
      const pkce = await createPkcePair();
      const { clientId, redirectUri } = t.publicApp;
      const code = await t.code({ user: ada, scope: 'userinfo offline_access', publicApp: true, redirectUri, codeChallenge: pkce.challenge });
      const spa = t.client({ clientId, clientSecret: undefined }, 'refreshToken');
      const tokens = await spa.exchangeToken({ code, redirectUri, codeVerifier: pkce.verifier });
      expect(await spa.refresh(tokens.refresh_token!)).toEqual(REFRESHED);
    });

    it('scope asks for fewer scopes; one the sign-in was not granted: 400 invalid_scope', async () => {
      const token = await refreshToken();
      const call = t.client(undefined, 'refreshScope').refresh(token, { scope: ['userinfo', 'email'] });
      const message = 'Scope "email" was not granted to this sign-in';
      expect(await failure(call)).toEqual([400, message, { message, error: 'invalid_scope', error_description: "Scope 'email' was not granted to this sign-in" }, 'invalid_scope']);
      expect(await t.client(undefined, 'refreshToken').refresh(token, { scope: 'userinfo' })).toEqual(REFRESHED);
    });

    it('an app whose grant_types lack refresh_token: 400 unauthorized_client', async () => {
      const token = await refreshToken();
      const call = t.client(t.otherApp, 'refreshNotAllowed').refresh(token);
      expect(await failure(call)).toEqual(oauthFailure(400, 'unauthorized_client', 'This app may not use refresh tokens: its grant_types lack refresh_token'));
    });

    it('introspects a live refresh token (token_use, exp its idle expiry); revoked, it refreshes no more', async () => {
      const token = await refreshToken();
      const iat = t.nowSeconds();
      expect(await t.client(undefined, 'refreshIntrospection').introspectToken(token)).toEqual({
        active: true,
        scope: 'userinfo offline_access',
        client_id: t.app.clientId,
        token_use: 'refresh_token',
        exp: iat + 14 * 24 * 3600,
        iat,
        sub: String(ada.id),
        username: ada.name,
      });
      await expect(t.client().revokeToken(token)).resolves.toBeUndefined();
      expect(await failure(t.client(undefined, 'refreshRevoked').refresh(token))).toEqual(oauthFailure(400, 'invalid_grant', 'Refresh token has been revoked'));
    });
  });

  describe('revokeToken and introspectToken', () => {
    it('introspects a live token: every field, exp and iat in seconds', async () => {
      const access = await token(ada, 'userinfo email');
      const iat = t.nowSeconds();
      expect(await t.client().introspectToken(access)).toEqual({
        active: true,
        scope: 'userinfo email',
        client_id: t.app.clientId,
        token_type: 'Bearer',
        exp: iat + 600,
        iat,
        sub: String(ada.id),
        username: ada.name,
      });
    });

    it('revokes a token (HTTP Basic), after which it introspects as inactive; revoking it again still succeeds (RFC 7009 2.2)', async () => {
      const access = await token(ada, 'userinfo');
      await expect(t.client({ clientAuth: 'basic' }).revokeToken(access)).resolves.toBeUndefined();
      expect(await t.client({ clientAuth: 'basic' }, 'revokedIntrospection').introspectToken(access)).toEqual({ active: false });
      await expect(t.client().revokeToken(access)).resolves.toBeUndefined();
    });

    it('whois of a revoked token: 401 invalid_token', async () => {
      const access = await token(ada, 'userinfo');
      await t.client().revokeToken(access);
      expect(await failure(t.client(undefined, 'revokedWhois').whois(access))).toEqual(error(401, 'Access token has been revoked', 'invalid_token'));
    });

    it("another app's token: 403", async () => {
      const access = await token(ada, 'userinfo');
      const call = t.client(undefined, 'otherAppsToken').revokeToken(access, t.otherApp);
      expect(await failure(call)).toEqual(oauthFailure(403, 'unauthorized_client', 'This token was issued to another client'));
    });

    it('introspection with a wrong secret: 401', async () => {
      const access = await token(ada, 'userinfo');
      const call = t.client({ clientSecret: 'wrong' }, 'introspectWrongSecret').introspectToken(access);
      expect(await failure(call)).toEqual(oauthFailure(401, 'invalid_client', 'Invalid client secret'));
    });
  });

  describe('discovery', () => {
    it('metadata: the RFC 8414 document with the endpoints at the issuer; openIdConfiguration: the same with UserInfo', async () => {
      const metadata = await t.client().metadata();
      const at = (path: string) => `${t.issuer}${path}`;
      expect(metadata).toMatchObject({
        issuer: t.issuer,
        authorization_endpoint: at('/oauth'),
        token_endpoint: at('/api/oauth/token'),
        revocation_endpoint: at('/api/oauth/revoke'),
        introspection_endpoint: at('/api/oauth/introspect'),
        userinfo_endpoint: at('/api/oauth/whois'),
        jwks_uri: at('/.well-known/jwks.json'),
        end_session_endpoint: at('/oauth/logout'),
        authorization_response_iss_parameter_supported: true,
      });
      expect(await t.client().openIdConfiguration()).toEqual({ ...metadata, userinfo_endpoint: at('/api/oauth/userinfo') });
    });
  });

  describe('whois and userInfo', () => {
    it('whois with the userinfo and email scopes: the identity with the email', async () => {
      const access = await token(ada, 'userinfo email');
      expect(await t.client().whois(access)).toEqual({ id: ada.id, name: ada.name, pfpTimestamp: ada.pfpTimestamp, email: ada.email });
    });

    it('whois with the userinfo scope only, for a user without a picture: id and name', async () => {
      const access = await token(grace, 'userinfo');
      expect(await t.client(undefined, 'whoisWithoutEmail').whois(access)).toEqual({ id: grace.id, name: grace.name });
    });

    it('whois of an unknown token: 401 invalid_token', async () => {
      expect(await failure(t.client(undefined, 'whoisUnknownToken').whois('not-a-token'))).toEqual(error(401, 'Invalid access token', 'invalid_token'));
    });

    it('whois without the userinfo scope: 403 insufficient_scope', async () => {
      const access = await token(ada, '');
      expect(await failure(t.client(undefined, 'whoisWithoutScope').whois(access))).toEqual(error(403, 'Access token lacks the userinfo scope', 'insufficient_scope'));
    });

    it('userInfo returns exactly the user object the endpoint sends', async () => {
      const raw = (await (await fetch(`${t.baseUrl}/api/users/info?id=${ada.id}`)).json()) as { user: unknown };
      const profile = await t.client().userInfo(ada.id);
      expect(profile).toEqual(raw.user);
      expect(profile).toMatchObject({ id: ada.id, name: ada.name, pfpTimestamp: ada.pfpTimestamp });
    });

    it("userInfo of a new user without a picture: a new profile's defaults, no pfpTimestamp", async () => {
      const profile = await t.client(undefined, 'profileWithoutPicture').userInfo(grace.id);
      expect(profile).toStrictEqual({ name: grace.name, id: grace.id, bio: '', flairs: ['none'], equippedFlair: 'none', playMinutes: 0, lastHeartbeat: 0, modLevel: 0 });
    });

    it('userInfo of an invalid id: 400; of an unknown one: 404', async () => {
      expect(await failure(t.client().userInfo(0))).toEqual(error(400, 'Invalid user ID'));
      expect(await failure(t.client(undefined, 'unknownUser').userInfo(999_999))).toEqual(error(404, 'User not found'));
    });
  });

  describe('pictures', () => {
    it('every size of both address forms resolves to a WebP of the exact dimensions', async () => {
      for (const user of [ada, grace]) {
        for (const size of Object.keys(PICTURE_SIZES) as PictureSize[]) {
          const file = user.pfpTimestamp === undefined ? `${user.id}` : `${user.id}-${user.pfpTimestamp}`;
          expect(t.client().pictureUrl(user, size)).toBe(`${t.baseUrl}/pfp/${size}/${file}.webp`);
          const meta = await sharp(await t.client().fetchPicture(user, size)).metadata();
          expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'webp', width: PICTURE_SIZES[size], height: PICTURE_SIZES[size] });
        }
      }
    });

    it('fetchPicture of an old address: 404', async () => {
      const call = t.client(undefined, 'pictureGone').fetchPicture({ id: ada.id, pfpTimestamp: 1 }, 'medium');
      expect(await failure(call)).toEqual(error(404, 'Profile picture not found'));
    });
  });

  describe('OpenID Connect UserInfo', () => {
    it('with openid, profile and email: every claim', async () => {
      const access = await token(ada, 'openid profile email');
      expect(await t.client().oidcUserInfo(access)).toEqual({
        sub: String(ada.id),
        name: ada.name,
        preferred_username: ada.name,
        profile: `${t.issuer}/users/${ada.id}`,
        picture: `${t.issuer}/pfp/large/${ada.id}-${ada.pfpTimestamp}.webp`,
        updated_at: ada.updatedAt,
        email: ada.email,
        email_verified: true,
      });
    });

    it('with openid only: sub', async () => {
      const access = await token(grace, 'openid');
      expect(await t.client(undefined, 'oidcOpenIdOnly').oidcUserInfo(access)).toEqual({ sub: String(grace.id) });
    });

    it('with profile, for a user without a picture: the default picture', async () => {
      const access = await token(grace, 'openid profile');
      expect(await t.client(undefined, 'oidcDefaultPicture').oidcUserInfo(access)).toEqual({
        sub: String(grace.id),
        name: grace.name,
        preferred_username: grace.name,
        profile: `${t.issuer}/users/${grace.id}`,
        picture: `${t.issuer}/pfp/large/${grace.id}.webp`,
        updated_at: grace.updatedAt,
      });
    });

    it('POST: the same claims as GET', async () => {
      const access = await token(ada, 'openid profile email');
      const claims = await t.client().oidcUserInfo(access);
      expect(await t.client().oidcUserInfo(access, { method: 'POST' })).toStrictEqual(claims);
      expect(claims).toMatchObject({ sub: String(ada.id), email: ada.email });
    });

    it('without the openid scope: 403 insufficient_scope', async () => {
      const access = await token(ada, 'userinfo');
      expect(await failure(t.client(undefined, 'oidcWithoutScope').oidcUserInfo(access))).toEqual(error(403, 'Access token lacks the openid scope', 'insufficient_scope'));
    });

    it('POST with an unknown token: 401 invalid_token', async () => {
      const call = t.client(undefined, 'oidcUnknownToken').oidcUserInfo('not-a-token', { method: 'POST' });
      expect(await failure(call)).toEqual(error(401, 'Invalid access token', 'invalid_token'));
    });
  });

  describe('verifyIdToken', () => {
    it("the exchange's ID token verifies with discovery's keys: its claims, its nonce; another app refuses it (audience)", async (ctx) => {
      if (t.serverOnly('verifyIdToken')) ctx.skip();
      const code = await t.code({ user: ada, scope: 'openid profile email', nonce: 'n-0S6_WzA2Mj' });
      const { id_token: idToken } = await t.client().exchangeToken({ code });
      const iat = t.nowSeconds();
      expect(await t.client().verifyIdToken(idToken!, { nonce: 'n-0S6_WzA2Mj', maxAge: 60 })).toEqual({
        iss: t.issuer,
        sub: String(ada.id),
        aud: t.app.clientId,
        azp: t.app.clientId,
        exp: iat + 600,
        iat,
        auth_time: iat,
        nonce: 'n-0S6_WzA2Mj',
        name: ada.name,
        preferred_username: ada.name,
        profile: `${t.issuer}/users/${ada.id}`,
        picture: `${t.issuer}/pfp/large/${ada.id}-${ada.pfpTimestamp}.webp`,
        updated_at: ada.updatedAt,
        email: ada.email,
        email_verified: true,
      });
      const refusal = await t.client({ clientId: t.otherApp.clientId }).verifyIdToken(idToken!).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(IdTokenError);
      expect((refusal as IdTokenError).code).toBe('audience');
    });
  });

  // Last: these move the service's clock (a device's waits), by 600 seconds for the expiry.
  describe('devices without a browser (RFC 8628): startDeviceAuthorization and pollDeviceToken', () => {
    const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
    /** A client of the public device app: its client id alone; against the mock, `steer` answers its calls one after another. */
    const device = (steer?: readonly SteeredException[]) => t.client({ clientId: t.deviceApp.clientId, clientSecret: undefined }, steer);
    /** A device's waits, recorded and passed on the target's clock; `during(n)` runs while the n-th (from 1) lasts. */
    function waits(during: (n: number, ms: number) => Promise<void> | void = () => undefined) {
      const done: number[] = [];
      const sleep = async (ms: number) => {
        done.push(ms);
        await during(done.length, ms);
      };
      return { done, sleep };
    }

    it('startDeviceAuthorization: the codes, the page to enter the user code at (with it filled in), 600 seconds, polls every 5', async () => {
      const started = await device().startDeviceAuthorization({ scope: ['openid', 'profile', 'offline_access'] });
      expect(started).toEqual({
        // The contract's example device code is 41 characters, the service's 43.
        device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        user_code: expect.stringMatching(USER_CODE),
        verification_uri: `${t.issuer}/device`,
        verification_uri_complete: `${t.issuer}/device?user_code=${started.user_code}`,
        expires_in: 600,
        interval: 5,
      });
    });

    it('an app whose grant_types lack the device grant: 400 unauthorized_client', async () => {
      const call = t.client(undefined, 'deviceNotAllowed').startDeviceAuthorization({ scope: 'userinfo' });
      const message = 'This app may not use the device flow: its grant_types lack urn:ietf:params:oauth:grant-type:device_code';
      expect(await failure(call)).toEqual(oauthFailure(400, 'unauthorized_client', message));
    });

    it('pollDeviceToken waits interval before each poll, polls on while pending, 5 s longer after slow_down, and resolves with the tokens once approved; polled again: 400 invalid_grant', async () => {
      const started = await device().startDeviceAuthorization({ scope: 'userinfo email' });
      const intervals: number[] = [];
      const { done, sleep } = waits(async (n, ms) => {
        // The third wait ends after 1 second, as a device's early timer might: the service says slow_down.
        if (n === 3) return t.advance(1000);
        // The person approves during the fourth.
        if (n === 4) await t.decideDevice(started.user_code, ada, 'approve');
        t.advance(ms);
      });
      const tokens = await device(['devicePending', 'devicePending', 'deviceSlowDown']).pollDeviceToken(started, { sleep, onPending: ({ interval }) => intervals.push(interval) });
      expect(tokens).toEqual(TOKEN);
      expect(done).toEqual([5000, 5000, 5000, 10_000]);
      expect(intervals).toEqual([5, 5, 10]);
      expect(await t.client().whois(tokens.access_token)).toEqual({ id: ada.id, name: ada.name, pfpTimestamp: ada.pfpTimestamp, email: ada.email });
      const again = device(['deviceUsed']).pollDeviceToken(started, { sleep: async () => undefined });
      expect(await failure(again)).toEqual(oauthFailure(400, 'invalid_grant', 'Device code has already been used'));
    });

    it('with offline_access and openid: a refresh token and an ID token, as an exchange answers them', async (ctx) => {
      if (t.serverOnly('deviceTokens')) ctx.skip();
      const started = await device().startDeviceAuthorization({ scope: 'openid offline_access' });
      const { sleep } = waits(async (n, ms) => {
        if (n === 1) await t.decideDevice(started.user_code, ada, 'approve');
        t.advance(ms);
      });
      const tokens = await device().pollDeviceToken(started, { sleep });
      expect(tokens).toEqual({ ...TOKEN, refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
      expect(decodeJwtPart(tokens.id_token!, 1)).toMatchObject({ iss: t.issuer, sub: String(ada.id), aud: t.deviceApp.clientId, amr: ['pwd'] });
      expect(decodeJwtPart(tokens.id_token!, 1)).not.toHaveProperty('nonce');
    });

    it('denied: rejects with 400 access_denied after that poll, and polls no more', async () => {
      const started = await device().startDeviceAuthorization({ scope: 'userinfo' });
      const { done, sleep } = waits(async (n, ms) => {
        if (n === 1) await t.decideDevice(started.user_code, ada, 'deny');
        t.advance(ms);
      });
      const call = device(['deviceDenied']).pollDeviceToken(started, { sleep });
      expect(await failure(call)).toEqual(oauthFailure(400, 'access_denied', 'The person denied this device'));
      expect(done).toEqual([5000]);
    });

    it("nobody decided in 600 seconds: the service's 400 expired_token", async () => {
      const started = await device().startDeviceAuthorization({ scope: 'userinfo' });
      const { done, sleep } = waits(() => t.advance(600_000));
      const call = device(['deviceExpired']).pollDeviceToken(started, { sleep });
      expect(await failure(call)).toEqual(oauthFailure(400, 'expired_token', 'Device code has expired'));
      expect(done).toEqual([5000]);
    });

    it('gives up by itself, with the same expired_token, when the next poll would come after expires_in', async () => {
      const started = await device().startDeviceAuthorization({ scope: 'userinfo' });
      const { done, sleep } = waits((_n, ms) => t.advance(ms));
      const call = device(['devicePending', 'devicePending']).pollDeviceToken({ ...started, expires_in: 12 }, { sleep });
      expect(await failure(call)).toEqual(oauthFailure(400, 'expired_token', 'Device code has expired'));
      // 5 + 5 seconds waited; another 5 would end after 12.
      expect(done).toEqual([5000, 5000]);
    });

    it('any other refusal ends it: an unknown device code, 400 invalid_grant', async () => {
      const started = await device().startDeviceAuthorization({ scope: 'userinfo' });
      const { done, sleep } = waits((_n, ms) => t.advance(ms));
      const call = device(['deviceInvalid']).pollDeviceToken({ ...started, device_code: 'not-a-device-code' }, { sleep });
      expect(await failure(call)).toEqual(oauthFailure(400, 'invalid_grant', 'Invalid device code'));
      expect(done).toEqual([5000]);
    });

    it("abort: an aborted signal polls nothing; aborted after a poll, or during the real 5-second wait, it rejects at once with the signal's reason", async () => {
      const started = await device().startDeviceAuthorization({ scope: 'userinfo' });
      const isAbort = (err: unknown) => expect(err).toMatchObject({ name: 'AbortError' });

      const none = waits();
      isAbort(await device().pollDeviceToken(started, { signal: AbortSignal.abort(), sleep: none.sleep }).catch((e: unknown) => e));
      expect(none.done).toEqual([]);

      const afterPoll = new AbortController();
      const one = waits((_n, ms) => t.advance(ms));
      const polling = device(['devicePending']).pollDeviceToken(started, { signal: afterPoll.signal, sleep: one.sleep, onPending: () => afterPoll.abort() });
      isAbort(await polling.catch((e: unknown) => e));
      expect(one.done).toEqual([5000]);

      const midWait = new AbortController();
      const begun = Date.now();
      setTimeout(() => midWait.abort(), 50);
      isAbort(await device().pollDeviceToken(started, { signal: midWait.signal }).catch((e: unknown) => e));
      expect(Date.now() - begun).toBeLessThan(2000);
    });
  });

  describe('authorizeUrl and logoutUrl', () => {
    it("builds the traditional flow's address at the target with the app's client id", () => {
      const url = t.client().authorizeUrl({ redirectUri: t.app.redirectUri, scope: ['userinfo', 'email'], state: 'xyz' });
      const query = new URLSearchParams({ response_type: 'code', client_id: t.app.clientId, redirect_uri: t.app.redirectUri, scope: 'userinfo email', state: 'xyz' });
      expect(url).toBe(`${t.baseUrl}/oauth?${query.toString()}`);
    });

    it("builds the logout address at the target with the app's client id", () => {
      const url = t.client().logoutUrl({ postLogoutRedirectUri: 'https://app.example/signed-out', state: 'xyz' });
      expect(url).toBe(`${t.baseUrl}/oauth/logout?post_logout_redirect_uri=https%3A%2F%2Fapp.example%2Fsigned-out&state=xyz&client_id=${t.app.clientId}`);
    });
  });
}
