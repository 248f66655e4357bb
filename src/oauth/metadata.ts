/** RFC 8414 authorization server metadata: what discovery-based client libraries start from. */
import type { components } from '../../generated/api.js';
import { SCOPES } from './scopes.js';

type AuthorizationServerMetadata = components['schemas']['AuthorizationServerMetadata'];

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/** `issuer` is PUBLIC_URL as config.ts normalises it: no trailing slash, as RFC 8414 2 requires. */
export function authorizationServerMetadata(issuer: string): AuthorizationServerMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth`,
    token_endpoint: `${issuer}/api/oauth/token`,
    revocation_endpoint: `${issuer}/api/oauth/revoke`,
    introspection_endpoint: `${issuer}/api/oauth/introspect`,
    userinfo_endpoint: `${issuer}/api/oauth/whois`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    service_documentation: `${issuer}/docs`,
    authorization_response_iss_parameter_supported: true,
  };
}
