/** Linked accounts (docs/account.md#linked-accounts): over src/upstreams/identities.ts. */
import { listUpstreamIdentities as list } from '../upstreams/identities.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const listUpstreamIdentities: Handler<'listUpstreamIdentities'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listUpstreamIdentities', 200> = { identities: await list(deps.store, signedInUser(ctx).id) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
