import { signUp } from '../accounts/accounts.js';
import { mailAfterSignUp } from '../accounts/email/verification.js';
import { signUpPage, signUpSentPage } from '../pages/pages.js';
import { csrfToken } from '../sessions/csrf.js';
import { offerUpstreams } from '../http/upstream-sign-in.js';
import { normalizeEmail } from '../accounts/users.js';
import type { Handler } from '../http/handler.js';
import { formAction, returnPathOf, sendHtml } from '../http/pages.js';

/**
 * Sign-up answers the same page whether the address was new or already registered (which only
 * its owner learns, by mail: docs/email.md#sign-up); so it does not sign in: the person signs in
 * with the name and password just chosen. A taken name is said (names are public).
 */
export const postSignUp: Handler<'postSignUp'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = returnPathOf(deps, form.return_to);
  await formAction(
    ctx,
    async () => {
      const outcome = await signUp(deps, { name: form.name, email: form.email, password: form.password }, ctx.ip);
      if ('created' in outcome) deps.audit('sign_up', { userId: outcome.created.id, ip: ctx.ip, userAgent: ctx.get('User-Agent') });
      mailAfterSignUp(deps, outcome);
      sendHtml(ctx, signUpSentPage({ user: undefined, csrfToken: csrfToken(ctx), email: normalizeEmail(form.email), returnTo }));
    },
    async (error) => signUpPage({ user: undefined, csrfToken: csrfToken(ctx), error, name: form.name, email: form.email, returnTo, upstreams: await offerUpstreams(ctx, deps) }),
  );
};
