/**
 * CSRF protection by synchronizer tokens (the `csrf` package, as used by csurf and koa-csrf): a
 * secret lives in the session; pages embed tokens made from it; every state-changing request a
 * page makes sends one back (X-CSRF-Token header, or the `_csrf` form field).
 * docs/decisions.md#sessions-and-csrf says why SameSite alone is not relied on.
 */
import Tokens from 'csrf';
import type Koa from 'koa';
import { readSession, writeSession } from './session.js';

const tokens = new Tokens();

export function newCsrfSecret(): string {
  return tokens.secretSync();
}

/** A token for this session's secret, creating the secret (and so the session) when needed. */
export function csrfToken(ctx: Koa.Context): string {
  let secret = readSession(ctx).csrfSecret;
  if (!secret) {
    secret = newCsrfSecret();
    writeSession(ctx, { csrfSecret: secret });
  }
  return tokens.create(secret);
}

export function csrfTokenValid(ctx: Koa.Context, token: unknown): boolean {
  const secret = readSession(ctx).csrfSecret;
  return typeof secret === 'string' && typeof token === 'string' && token !== '' && tokens.verify(secret, token);
}

/** A token when the session already has a secret ('' otherwise); never creates a session. */
export function existingCsrfToken(ctx: Koa.Context): string {
  const secret = readSession(ctx).csrfSecret;
  return secret ? tokens.create(secret) : '';
}
