/**
 * The token endpoint (RFC 6749 section 3.2) as a pipeline, as node-oidc-provider has it. The
 * handler (src/handlers/exchangeToken.ts) forbids caching and the contract parses the body; then:
 *
 * 1. the supported-grant check: a `grant_type` without a grant in GRANTS is 400
 *    `unsupported_grant_type`, before any grant's own field is read;
 * 2. the grant's own fields (`code`, `refresh_token`, `device_code`);
 * 3. client authentication (src/oauth/client-authentication.ts), one read with what the grant
 *    needs beside the app;
 * 4. the allowed-grant check: an app whose `grant_types` lack the grant is 400 `unauthorized_client`;
 * 5. the grant itself (src/oauth/grants/).
 *
 * The supported-grant check comes before client authentication (node-oidc-provider has it after)
 * because the seed refused an unsupported grant so, with these words, whatever the credentials:
 * its answers stay byte-identical.
 */
import type { AppRecord } from '../domain/apps.js';
import { UnauthorizedClient, UnsupportedGrantType } from '../domain/errors.js';
import { authenticateClientRequest } from './client-authentication.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { deviceCodeGrant } from './grants/device-code.js';
import type { Grant } from './grants/grant.js';
import { refreshTokenGrant } from './grants/refresh-token.js';
import type { ExchangeDeps, TokenParams, TokenResult } from './tokens.js';

/** The seed's words, kept (its answers stay byte-identical), though refresh and device grants came since. */
const UNSUPPORTED_GRANT_TYPE = 'Unsupported grant_type: only authorization_code is supported';

type Pipeline = (deps: ExchangeDeps, params: TokenParams, authorization: string | undefined) => Promise<TokenResult>;

/** Steps 2 to 5 for one grant. */
function pipeline<Fields, Found extends { app: AppRecord | undefined }>(grant: Grant<Fields, Found>): [string, Pipeline] {
  return [
    grant.type,
    async (deps, params, authorization) => {
      const fields = grant.fields(params);
      const found = await authenticateClientRequest(params, authorization, (clientId) => grant.read(deps, clientId, fields));
      if (!found.app.grantTypes.includes(grant.type)) throw new UnauthorizedClient(grant.notAllowed);
      return grant.issue(deps, found, fields);
    },
  ];
}

/** Every grant the token endpoint knows, by `grant_type` (the contract's GrantType enum). */
const GRANTS: ReadonlyMap<string, Pipeline> = new Map([pipeline(authorizationCodeGrant), pipeline(refreshTokenGrant), pipeline(deviceCodeGrant)]);

export async function tokenRequest(deps: ExchangeDeps, params: TokenParams, authorization: string | undefined): Promise<TokenResult> {
  const grant = params.grant_type === undefined ? undefined : GRANTS.get(params.grant_type);
  if (!grant) throw new UnsupportedGrantType(UNSUPPORTED_GRANT_TYPE);
  return grant(deps, params, authorization);
}
