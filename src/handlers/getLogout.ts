import type { Handler } from '../http/handler.js';
import { answerLogout } from '../http/logout.js';
import { resolveLogout } from '../oauth/logout.js';

/** OpenID Connect RP-initiated logout, asked by a link (docs/oauth.md#signing-out-rp-initiated-logout). */
export const getLogout: Handler<'getLogout'> = async (input, ctx, deps) => {
  const request = await resolveLogout(deps, input.query);
  await answerLogout(ctx, deps, request, input.query);
};
