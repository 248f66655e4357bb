/**
 * `GET /device` (RFC 8628's verification page; docs/oauth.md#devices-without-a-browser): the form
 * for the code a device shows, filled in from `user_code` (the device's verification_uri_complete).
 * Opening it decides nothing. Signed out: to sign in first, back here with the code.
 */
import type { Handler } from '../http/handler.js';
import { pageContext, redirectToSignIn, sendHtml } from '../http/pages.js';
import { deviceAddress, deviceFormPage } from '../pages/device.js';

export const getDevicePage: Handler<'getDevicePage'> = async (input, ctx, deps) => {
  const typed = input.query.user_code;
  const page = await pageContext(ctx, deps);
  if (!page.user) return redirectToSignIn(ctx, deviceAddress(typed), 303);
  sendHtml(ctx, deviceFormPage({ ...page, user: page.user, typed }));
};
