import { exportAccount as build } from '../privacy/export.js';
import { readSession } from '../sessions/session.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const exportAccount: Handler<'exportAccount'> = async (_input, ctx, deps) => {
  const user = signedInUser(ctx);
  const body: JsonBody<'exportAccount', 200> = await build(deps, user.id, readSession(ctx).meta?.publicId);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Disposition', `attachment; filename="account-${user.id}.json"`);
  ctx.body = body;
};
