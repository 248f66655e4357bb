import type { Handler } from '../http/handler.js';
import { answerLogout } from '../http/logout.js';
import { resolveLogout } from '../oauth/logout.js';

/** OpenID Connect RP-initiated logout, asked by a form: answered as getLogout answers the same parameters. */
export const postLogout: Handler<'postLogout'> = async (input, ctx, deps) => {
  const params = input.body ?? {};
  const request = await resolveLogout(deps, params);
  await answerLogout(ctx, deps, request, params);
};
