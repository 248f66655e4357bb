/**
 * POST /api/oauth/token as a pipeline (src/oauth/token-endpoint.ts): which refusal a request gets
 * when it is wrong in several ways at once. The supported-grant check comes first (before the
 * grant's own fields and the client's credentials), then the grant's fields, then client
 * authentication, then the allowed-grant check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeCode, makeUser, oauthErrorBody, startServer, tokenRequest, type TestClient, type TestServer } from '../helpers.js';

const UNSUPPORTED = oauthErrorBody('unsupported_grant_type', 'Unsupported grant_type: only authorization_code is supported');
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let t: TestServer;
let client: TestClient;
beforeAll(async () => {
  t = await startServer();
  client = await makeClient(t, (await makeUser(t)).id);
});
afterAll(async () => {
  await t?.close();
});

async function answer(params: Record<string, string>, headers: Record<string, string> = {}): Promise<[number, string | null, string | null, unknown]> {
  const res = await tokenRequest(t, params, headers);
  return [res.status, res.headers.get('cache-control'), res.headers.get('content-type'), await res.json()];
}

const refused = (body: unknown): [number, string, string, unknown] => [400, 'no-store', 'application/json; charset=utf-8', body];

describe('the supported-grant check', () => {
  it.each([
    ['client_credentials'],
    ['password'],
    ['implicit'],
    ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
    ['urn:ietf:params:oauth:grant-type:token-exchange'],
    ['urn:example:unknown'],
    ['AUTHORIZATION_CODE'],
    [''],
  ])('answers grant_type=%j with 400 unsupported_grant_type before any grant field is read', async (grantType) => {
    // No code, no refresh_token, no device_code: before this fix client_credentials was "Body field code is required".
    expect(await answer({ grant_type: grantType, client_id: client.clientId, client_secret: client.clientSecret })).toEqual(refused(UNSUPPORTED));
  });

  it('refuses an unsupported grant whatever the credentials: wrong, unknown, or none', async () => {
    expect(await answer({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: 'wrong' })).toEqual(refused(UNSUPPORTED));
    expect(await answer({ grant_type: 'password', username: 'a', password: 'b', client_id: 'nobody', client_secret: 'x' })).toEqual(refused(UNSUPPORTED));
    expect(await answer({ grant_type: 'client_credentials' })).toEqual(refused(UNSUPPORTED));
    const basic = `Basic ${Buffer.from(`${client.clientId}:wrong`).toString('base64')}`;
    expect(await answer({ grant_type: 'client_credentials', scope: 'userinfo' }, { Authorization: basic })).toEqual(refused(UNSUPPORTED));
  });

  it("keeps the seed's answer to an unsupported grant sent with a code", async () => {
    const code = await makeCode(t, { userId: client.ownerId, clientId: client.clientId });
    expect(await answer({ grant_type: 'password', code, client_id: client.clientId, client_secret: client.clientSecret })).toEqual(refused(UNSUPPORTED));
    // The code is still good: the refusal read nothing.
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    expect(res.status).toBe(200);
  });
});

describe("the grant's own fields come before client authentication", () => {
  it.each([
    ['authorization_code', 'Body field code is required'],
    ['refresh_token', 'Body field refresh_token is required'],
    [DEVICE_GRANT, 'Body field device_code is required'],
  ])('grant_type=%s without its field is 400 invalid_request, even from an unknown client', async (grantType, message) => {
    expect(await answer({ grant_type: grantType, client_id: 'nobody', client_secret: 'x' })).toEqual(refused(oauthErrorBody('invalid_request', message)));
  });
});

describe('the allowed-grant check comes after client authentication', () => {
  it.each([
    ['refresh_token', { refresh_token: 'whatever' }, 'This app may not use refresh tokens: its grant_types lack refresh_token'],
    [DEVICE_GRANT, { device_code: 'whatever' }, 'This app may not use the device flow: its grant_types lack urn:ietf:params:oauth:grant-type:device_code'],
  ])('grant_type=%s from an app without it: 401 for a wrong secret, else 400 unauthorized_client', async (grantType, fields, message) => {
    const wrong = await tokenRequest(t, { grant_type: grantType, ...fields, client_id: client.clientId, client_secret: 'wrong' });
    expect([wrong.status, await wrong.json()]).toEqual([401, oauthErrorBody('invalid_client', 'Invalid client secret')]);
    expect(await answer({ grant_type: grantType, ...fields, client_id: client.clientId, client_secret: client.clientSecret })).toEqual(
      refused(oauthErrorBody('unauthorized_client', message)),
    );
  });
});
