import { listGrants as list } from '../oauth/consent.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const listGrants: Handler<'listGrants'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listGrants', 200> = { grants: await list(deps.store, signedInUser(ctx).id) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
