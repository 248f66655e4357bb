/**
 * OpenID Connect's `prompt` for the traditional flow, and the redirects a request without a
 * page ends in. Every redirect built here carries `iss` (RFC 9207): the service's public URL
 * without a trailing slash, so a client talking to several providers can tell whose answer it is.
 */
import { clientRedirect, type AuthorizationError, type ResolvedClient } from './authorize.js';

export interface Prompt {
  /** Never show a page: answer with an error instead. */
  none: boolean;
  /** Show the consent page even when consent is remembered. */
  consent: boolean;
  /** Ask the person to sign in again even when signed in. */
  login: boolean;
}

/** Reads `prompt` (space-separated); values other than none, login and consent are ignored. */
export function parsePrompt(raw: string | undefined): Prompt | AuthorizationError {
  const values = (raw ?? '').split(' ').filter((v) => v !== '');
  const none = values.includes('none');
  if (none && values.length > 1) {
    return { error: 'invalid_request', description: 'prompt=none cannot be combined with other prompt values' };
  }
  return { none, consent: values.includes('consent'), login: values.includes('login') };
}

function issuerOf(publicUrl: string): string {
  return publicUrl.replace(/\/+$/, '');
}

/** The client's redirect_uri with `params`, the state and this service's `iss`. */
export function redirectWithIss(client: ResolvedClient, params: Record<string, string>, state: string | undefined, publicUrl: string): string {
  return clientRedirect(client.redirectUri, params, state, issuerOf(publicUrl));
}

export const SILENT_ERRORS = {
  login_required: 'The user is not signed in and prompt=none forbids asking',
  consent_required: 'The app needs consent and prompt=none forbids asking',
} as const;

/** The redirect for a prompt=none request that would need a page. */
export function silentError(client: ResolvedClient, error: keyof typeof SILENT_ERRORS, state: string | undefined, publicUrl: string): string {
  return redirectWithIss(client, { error, error_description: SILENT_ERRORS[error] }, state, publicUrl);
}
