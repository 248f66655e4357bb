/** Linked accounts (docs/account.md#linked-accounts): over src/upstreams/identities.ts. */
import { unlinkUpstreamIdentity as unlink } from '../upstreams/identities.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { currentSessionIdHash, sessionConfirmations } from '../sessions/session.js';

export const unlinkUpstreamIdentity: Handler<'unlinkUpstreamIdentity'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, ...sessionConfirmations(ctx, signedInUser(ctx).id) };
  await unlink(deps, signedInUser(ctx), Number(input.path.identityId), proof, ctx.ip, currentSessionIdHash(ctx));
  ctx.status = 204;
};
