/**
 * `POST /device` (the device page's forms; the csrf scheme checked their token): without
 * `decision`, looks the typed code up and shows its app and scopes with Approve and Deny; with
 * one, decides (src/oauth/device.ts) and says what the device will do. A refused code (wrong,
 * malformed, expired, decided already: 400; too many wrong ones: 429; approving what cannot be
 * approved: 403) shows the form again with the reason.
 */
import type { Handler } from '../http/handler.js';
import { formAction, pageContext, redirectToSignIn, sendHtml } from '../http/pages.js';
import { decideUserCode, findUserCode } from '../oauth/device.js';
import { deviceAddress, deviceConfirmPage, deviceFormPage, deviceResultPage } from '../pages/device.js';
import { consentEmailNotice } from '../pages/email-pages.js';
import { sessionAmr, sessionAuthTime } from '../sessions/session.js';

export const postDevice: Handler<'postDevice'> = async (input, ctx, deps) => {
  const { user_code: typed, decision } = input.body;
  const page = await pageContext(ctx, deps);
  if (!page.user || !page.record) return redirectToSignIn(ctx, deviceAddress(typed), 303);
  const common = { ...page, user: page.user };
  const visitor = { user: page.record, ip: ctx.ip };
  await formAction(
    ctx,
    async () => {
      if (decision === undefined) {
        const { view } = await findUserCode(deps, typed, visitor);
        const emailNotice = view.emailNotVerified ? consentEmailNotice({ csrfToken: page.csrfToken, returnTo: deviceAddress(view.userCode) }) : undefined;
        return sendHtml(ctx, deviceConfirmPage({ ...common, view, emailNotice }));
      }
      // The session's sign-in, as a code of the consent page carries it (src/http/authorization.ts).
      const signIn = { authTime: sessionAuthTime(ctx) ?? deps.now(), amr: sessionAmr(ctx) };
      const view = await decideUserCode(deps, typed, { ...visitor, ...signIn }, decision);
      sendHtml(ctx, deviceResultPage({ ...common, appName: view.app.name, decision }));
    },
    (error) => deviceFormPage({ ...common, typed, error }),
  );
};
