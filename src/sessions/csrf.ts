/**
 * CSRF protection by synchronizer tokens (the `csrf` package, as used by csurf and koa-csrf):
 * pages embed tokens made from a secret; every state-changing request a page makes sends one back
 * (X-CSRF-Token header, or the `_csrf` form field). A session that exists (signed in, or in the
 * middle of a flow) keeps the secret in its row. A visitor without one gets the secret in a signed,
 * HttpOnly cookie instead (a signed double-submit cookie: HMAC with the session keys), so an
 * anonymous page view or GET /api/session stores nothing (docs/decisions.md#sessions-and-csrf).
 */
import Tokens from 'csrf';
import type Koa from 'koa';
import { readSession } from './session.js';
import { LIFETIMES } from '../domain/lifetimes.js';

const tokens = new Tokens();

/** The visitor's CSRF secret while no session row exists; signed with the session keys. */
const CSRF_COOKIE = 'idp.csrf';

export function newCsrfSecret(): string {
  return tokens.secretSync();
}

/** The secret of the cookie, when it carries a valid signature. */
function cookieSecret(ctx: Koa.Context): string | undefined {
  const value = ctx.cookies.get(CSRF_COOKIE, { signed: true });
  return value && /^[A-Za-z0-9_-]{16,64}$/.test(value) ? value : undefined;
}

/**
 * The secret tokens are checked against: the session's, once it has one (then only that one);
 * otherwise the visitor's cookie.
 */
function currentSecret(ctx: Koa.Context): string | undefined {
  return readSession(ctx).csrfSecret ?? cookieSecret(ctx);
}

/** A token for this request's secret; a visitor without one is given a cookie (never a session row). */
export function csrfToken(ctx: Koa.Context): string {
  let secret = currentSecret(ctx);
  if (!secret) {
    secret = newCsrfSecret();
    ctx.cookies.set(CSRF_COOKIE, secret, { signed: true, httpOnly: true, sameSite: 'lax', maxAge: LIFETIMES.session, overwrite: true });
  }
  return tokens.create(secret);
}

function csrfTokenValid(ctx: Koa.Context, token: unknown): boolean {
  const secret = currentSecret(ctx);
  return typeof secret === 'string' && typeof token === 'string' && token !== '' && tokens.verify(secret, token);
}

/** What a request without a valid CSRF token is answered (403). */
export const INVALID_CSRF_TOKEN = 'Invalid CSRF token';

/**
 * Whether the request sent back a valid token: in X-CSRF-Token, or in the `_csrf` field of a
 * form. The body may be anything (it may not be validated yet), so it is checked for the field
 * rather than given a type.
 */
export function sentValidCsrfToken(ctx: Koa.Context, body: unknown): boolean {
  const token = ctx.get('X-CSRF-Token') || (typeof body === 'object' && body !== null && '_csrf' in body ? body._csrf : undefined);
  return csrfTokenValid(ctx, token);
}

/** A token when the request already has a secret ('' otherwise); sets no cookie. */
export function existingCsrfToken(ctx: Koa.Context): string {
  const secret = currentSecret(ctx);
  return secret ? tokens.create(secret) : '';
}
