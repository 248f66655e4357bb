import { readSession } from '../sessions/session.js';
import { listUserSessions } from '../sessions/user-sessions.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const listSessions: Handler<'listSessions'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listSessions', 200> = { sessions: await listUserSessions(deps, signedInUser(ctx).id, readSession(ctx).meta?.publicId) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
