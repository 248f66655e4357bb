/**
 * The pages' one way to the JSON API: an openapi-fetch client typed by the contract
 * (generated/api.ts), so a path, a method, a parameter or a body the contract does not have is a
 * type error. Every request carries the session's CSRF token (the page's `csrf-token` meta tag).
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../../generated/api.js';

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin', headers: { Accept: 'application/json' } });
api.use({
  onRequest({ request }) {
    request.headers.set('X-CSRF-Token', csrf);
    return request;
  },
});

/** What an API call answered: openapi-fetch's result (data on success, error otherwise). */
export interface Answer {
  error?: unknown;
  response: Response;
}

/** Why a call failed, in words: the answer's `message`, else its status. */
export function reasonOf(answer: Answer): string {
  const { error } = answer;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return `HTTP ${answer.response.status}`;
}

/** The browser could not reach the service at all (fetch rejected): what the person is told. */
export const UNREACHABLE = 'the service could not be reached. Check your connection and try again';
