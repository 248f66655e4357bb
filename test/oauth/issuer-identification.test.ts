/** RFC 9207: every redirect of the traditional flow back to the client carries iss = the issuer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser, signedInAgent, startServer, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ PUBLIC_URL: 'https://id.example.com/' });
});
afterAll(async () => t?.close());

const ISSUER = 'https://id.example.com';
const CALLBACK = 'https://client.example/callback?keep=1';

function params(location: string | null): Record<string, string> {
  expect(location?.startsWith('https://client.example/callback?keep=1&')).toBe(true);
  return Object.fromEntries(new URL(location!).searchParams);
}

describe('iss on every redirect to the client', () => {
  it('success and every error, from GET /oauth and POST /oauth, with and without state', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id, [CALLBACK]);
    const { agent } = await signedInAgent(t);
    const base = { client_id: client.clientId, redirect_uri: CALLBACK };
    const gets: [Record<string, string>, Record<string, string>][] = [
      [{ scope: 'admin', state: 's' }, { error: 'invalid_scope', error_description: 'Unknown scope "admin"', state: 's' }],
      [{ scope: 'userinfo', response_type: 'token' }, { error: 'unsupported_response_type', error_description: 'Only response_type=code is supported' }],
      [{ scope: 'userinfo', code_challenge_method: 'plain', code_challenge: 'x'.repeat(43) }, { error: 'invalid_request', error_description: 'Only the S256 code_challenge_method is supported' }],
    ];
    for (const [extra, expected] of gets) {
      const res = await agent.fetch(`/oauth?${new URLSearchParams({ ...base, ...extra })}`);
      expect(res.status).toBe(302);
      expect(params(res.headers.get('location'))).toEqual({ keep: '1', ...expected, iss: ISSUER });
    }
    const cancel = await agent.form('/oauth', { ...base, scope: 'userinfo', decision: 'cancel' });
    expect(params(cancel.headers.get('location'))).toEqual({ keep: '1', error: 'access_denied', error_description: 'The user did not consent.', iss: ISSUER });
    const badScope = await agent.form('/oauth', { ...base, scope: 'email', state: 'q', decision: 'authorize' });
    expect(params(badScope.headers.get('location'))).toEqual({
      keep: '1',
      error: 'invalid_scope',
      error_description: 'The email scope requires the userinfo scope',
      state: 'q',
      iss: ISSUER,
    });
    const ok = await agent.form('/oauth', { ...base, scope: 'userinfo', state: 'z', decision: 'authorize' });
    expect(params(ok.headers.get('location'))).toEqual({ keep: '1', code: expect.stringMatching(/^[\w-]{43}$/), state: 'z', iss: ISSUER });
  });

  it('is never added to the error page of an unknown client or redirect_uri (no redirect at all)', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.fetch(`/oauth?${new URLSearchParams({ client_id: 'nope', redirect_uri: CALLBACK, scope: 'userinfo' })}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});
