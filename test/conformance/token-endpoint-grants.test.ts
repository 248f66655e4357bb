/**
 * Beyond the OpenID Foundation's plans, in the same run (docs/oauth.md#openid-conformance): RFC 6749
 * 5.2's `unsupported_grant_type` for every grant the provider does not offer, as a relying party
 * sees it. The plans' static clients, both authentication methods, and openid-client (a certified
 * relying party library) asking for client_credentials, which discovery does not list.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_DESCRIPTION, startOp, type Op } from './relying-party.js';

let op: Op;
beforeAll(async () => {
  op = await startOp();
});
afterAll(async () => {
  await op?.close();
});

const UNSUPPORTED = {
  error: 'unsupported_grant_type',
  error_description: 'Unsupported grant_type: only authorization_code is supported',
  message: 'Unsupported grant_type: only authorization_code is supported',
};

async function post(form: Record<string, string>, headers: Record<string, string> = {}): Promise<[number, string | null, string | null, Record<string, unknown>]> {
  const res = await fetch(`${op.t.baseUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return [res.status, res.headers.get('content-type'), res.headers.get('cache-control'), (await res.json()) as Record<string, unknown>];
}

describe('grant types the provider does not offer', () => {
  it('discovery lists exactly the three grants', async () => {
    const res = await fetch(op.discoveryUrl);
    expect(((await res.json()) as { grant_types_supported: string[] }).grant_types_supported).toEqual([
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
  });

  it.each([
    ['client_credentials', { scope: 'openid' }],
    ['password', { username: 'someone', password: 'guess', scope: 'openid' }],
    ['urn:ietf:params:oauth:grant-type:jwt-bearer', { assertion: 'e30.e30.' }],
    ['urn:example:params:oauth:grant-type:unknown', {}],
  ])('%s is 400 unsupported_grant_type, with client_secret_basic and client_secret_post alike', async (grantType, fields) => {
    const basic = `Basic ${Buffer.from(`${op.client.client_id}:${op.client.client_secret}`).toString('base64')}`;
    const viaBasic = await post({ grant_type: grantType, ...fields }, { Authorization: basic });
    const viaPost = await post({ grant_type: grantType, ...fields, client_id: op.clientSecretPost.client_id, client_secret: op.clientSecretPost.client_secret });
    for (const answer of [viaBasic, viaPost]) {
      expect(answer).toEqual([400, 'application/json; charset=utf-8', 'no-store', UNSUPPORTED]);
      expect(answer[3].error_description).toMatch(ERROR_DESCRIPTION);
    }
  });

  it("openid-client's clientCredentialsGrant gets the error code RFC 6749 5.2 names", async () => {
    const config = await oidc.discovery(new URL(op.issuer), op.client.client_id, op.client.client_secret, undefined, { execute: [oidc.allowInsecureRequests] });
    const failure = await oidc.clientCredentialsGrant(config, { scope: 'openid' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(oidc.ResponseBodyError);
    const error = failure as oidc.ResponseBodyError;
    expect([error.status, error.error, error.error_description]).toEqual([400, UNSUPPORTED.error, UNSUPPORTED.error_description]);
  });
});
