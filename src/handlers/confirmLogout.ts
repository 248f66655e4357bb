import type { Handler } from '../http/handler.js';
import { finishLogout } from '../http/logout.js';
import { signOutSession } from '../http/signed-in.js';
import { resolveLogout } from '../oauth/logout.js';

/** The person's answer to the "Sign out?" page: sign out, or stay signed in; either way on to the app. */
export const confirmLogout: Handler<'confirmLogout'> = async (input, ctx, deps) => {
  const { decision, ...params } = input.body;
  const request = await resolveLogout(deps, params);
  const signedOut = decision === 'signout' && signOutSession(ctx, deps);
  await finishLogout(ctx, deps, request, signedOut);
};
