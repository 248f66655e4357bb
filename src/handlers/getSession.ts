import { csrfToken } from '../sessions/csrf.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { currentUser } from '../http/signed-in.js';

export const getSession: Handler<'getSession'> = async (_input, ctx, deps) => {
  const user = await currentUser(ctx, deps);
  const body: JsonBody<'getSession', 200> = user
    ? { signed_in: true, user: { id: user.id, name: user.name }, csrf_token: csrfToken(ctx) }
    : { signed_in: false, csrf_token: csrfToken(ctx) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
