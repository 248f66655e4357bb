/**
 * What a grant type is to the token endpoint (src/oauth/token-endpoint.ts), as node-oidc-provider
 * has them: its own fields, what it reads beside the app, and what it issues. The endpoint does
 * the rest the same way for each: the supported-grant check, client authentication, the
 * allowed-grant check.
 */
import type { AppRecord, GrantType } from '../../domain/apps.js';
import type { ExchangeDeps, TokenParams, TokenResult } from '../tokens.js';

export interface Grant<Fields, Found extends { app: AppRecord | undefined }> {
  /** The `grant_type` that selects it. */
  type: GrantType;
  /** unauthorized_client's words for an app whose `grant_types` lack this grant. */
  notAllowed: string;
  /**
   * The grant's own fields, read once the grant is known and before the client is authenticated:
   * a request that lacks one is refused whatever its credentials.
   */
  fields(params: TokenParams): Fields;
  /** What the grant needs beside the app, read with it in one round trip (authenticateClientRequest). */
  read(deps: ExchangeDeps, clientId: string, fields: Fields): Promise<Found>;
  /** The grant itself, for an authenticated client allowed it. */
  issue(deps: ExchangeDeps, found: Found & { app: AppRecord }, fields: Fields): Promise<TokenResult>;
}
