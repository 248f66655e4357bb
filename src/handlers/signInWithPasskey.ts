/** Passkeys (docs/account.md#passkeys): signing in with one (src/accounts/sign-in.ts). */
import { signInWithPasskey as signInWith } from '../accounts/sign-in.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { returnPathOf } from '../http/pages.js';
import { beginSignedInSession } from '../http/signed-in.js';
import { takePasskeyChallenge } from '../sessions/session.js';

export const signInWithPasskey: Handler<'signInWithPasskey'> = async (input, ctx, deps) => {
  const challenge = takePasskeyChallenge(ctx, 'sign_in', deps.now());
  const returnTo = returnPathOf(deps, input.body.return_to);
  const signedIn = await signInWith(deps, { response: input.body.credential, challenge }, ctx.ip);
  await beginSignedInSession(ctx, deps, signedIn, returnTo);
  const body: JsonBody<'signInWithPasskey', 200> = { redirect: returnTo ?? '/account' };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
