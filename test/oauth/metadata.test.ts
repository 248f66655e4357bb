/** GET /.well-known/oauth-authorization-server: RFC 8414 metadata, from PUBLIC_URL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  // A trailing slash and a path: the issuer keeps the path and loses the slash (RFC 8414 2).
  t = await startServer({ PUBLIC_URL: 'https://id.example.com/idp/' });
});
afterAll(async () => t?.close());

const ISSUER = 'https://id.example.com/idp';

describe('getAuthorizationServerMetadata', () => {
  it('lists every endpoint and feature under the issuer PUBLIC_URL names, without a trailing slash', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth`,
      token_endpoint: `${ISSUER}/api/oauth/token`,
      revocation_endpoint: `${ISSUER}/api/oauth/revoke`,
      introspection_endpoint: `${ISSUER}/api/oauth/introspect`,
      device_authorization_endpoint: `${ISSUER}/api/oauth/device_authorization`,
      userinfo_endpoint: `${ISSUER}/api/oauth/whois`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      end_session_endpoint: `${ISSUER}/oauth/logout`,
      scopes_supported: ['userinfo', 'email', 'openid', 'profile', 'offline_access'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'amr', 'acr', 'nonce', 'azp', 'name', 'preferred_username', 'profile', 'picture', 'updated_at', 'email', 'email_verified'],
      prompt_values_supported: ['none', 'login', 'consent'],
      acr_values_supported: ['1', '2'],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      service_documentation: `${ISSUER}/docs`,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('is cacheable for an hour and readable from any origin, without credentials', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`, { headers: { Origin: 'https://app.example' } });
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const preflight = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('the issuer is the iss of the traditional flow (same PUBLIC_URL normalisation)', async () => {
    const metadata = (await (await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
    expect(metadata.issuer).toBe(t.config.publicUrl);
  });
});
