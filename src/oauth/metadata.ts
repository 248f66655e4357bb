/**
 * RFC 8414 authorization server metadata, which is also the OpenID Provider metadata (OpenID
 * Connect Discovery 1.0): one document at both well-known addresses, what discovery-based client
 * libraries and relying parties start from.
 */
import type { components } from '../../generated/api.js';
import { ACR_VALUES } from './claims.js';
import { GRANT_TYPES } from './grant-types.js';
import { SCOPES } from './scopes.js';

type AuthorizationServerMetadata = components['schemas']['AuthorizationServerMetadata'];

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];
/** Public apps authenticate with their client id alone (and PKCE): `none`. */
const ANY_CLIENT_AUTH_METHODS = [...CLIENT_AUTH_METHODS, 'none'];

/** Every claim an ID token or UserInfo answer may carry (src/oauth/claims.ts). */
const CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'amr', 'acr', 'nonce', 'azp', 'name', 'preferred_username', 'profile', 'picture', 'updated_at', 'email', 'email_verified'];

/**
 * `issuer` is PUBLIC_URL as config.ts normalises it: no trailing slash, as RFC 8414 2 requires.
 * The two documents differ in one field: `userinfo_endpoint` is OpenID Connect's UserInfo in the
 * OpenID Provider metadata, and whois in the RFC 8414 document, where OAuth clients have found it
 * since before OpenID Connect (docs/oauth.md#openid-connect).
 */
export function authorizationServerMetadata(issuer: string, kind: 'oauth' | 'openid'): AuthorizationServerMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth`,
    token_endpoint: `${issuer}/api/oauth/token`,
    revocation_endpoint: `${issuer}/api/oauth/revoke`,
    introspection_endpoint: `${issuer}/api/oauth/introspect`,
    userinfo_endpoint: kind === 'openid' ? `${issuer}/api/oauth/userinfo` : `${issuer}/api/oauth/whois`,
    device_authorization_endpoint: `${issuer}/api/oauth/device_authorization`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    end_session_endpoint: `${issuer}/oauth/logout`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ANY_CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: ANY_CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claims_supported: CLAIMS,
    prompt_values_supported: ['none', 'login', 'consent'],
    acr_values_supported: [...ACR_VALUES],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    service_documentation: `${issuer}/docs`,
    authorization_response_iss_parameter_supported: true,
  };
}
