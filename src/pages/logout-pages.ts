/** The pages of OpenID Connect RP-initiated logout (src/http/logout.ts). */
import { html } from '../domain/html.js';
import { layout, type PageUser } from './html.js';
import { ids } from './ids.js';

interface Common {
  user: PageUser | undefined;
  csrfToken: string;
}

/**
 * Asked when an app wants the signed-in person signed out without naming them (no matching
 * id_token_hint), or names them with an expired hint on the way to its post-logout address. With
 * an address (`destination`: its host), both buttons lead there, and say so.
 */
export function logoutConfirmPage(o: Common & { user: PageUser; appName: string | undefined; destination: string | undefined; fields: Record<string, string> }): string {
  return layout({
    ...o,
    title: 'Sign out?',
    body: html`<section class="consent">
<h1>Sign out?</h1>
<p>${o.appName ? html`<strong id="${ids.consent.appName}">${o.appName}</strong> asks to sign you out of this service.` : 'An app asks to sign you out of this service.'} You are signed in as <strong>${o.user.name}</strong>.</p>
<form method="post" action="/oauth/logout/confirm" class="actions">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
${Object.entries(o.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" name="decision" value="signout" id="signout">${o.destination ? html`Sign out and continue to ${o.destination}` : 'Sign out'}</button>
<button type="submit" name="decision" value="stay" id="stay" class="secondary">${o.destination ? html`Stay signed in and continue to ${o.destination}` : 'Stay signed in'}</button>
</form>
</section>`,
  });
}

/**
 * Shown to a signed-out visitor whom an app sends here without a current ID token hint, on the
 * way to its post_logout_redirect_uri: nothing to end, and the way on is the visitor's to take,
 * so a link alone never redirects (any signed-in person can register an app and its addresses);
 * the button names the host it leads to. It sends `stay`: it ends no session, even one begun in
 * another tab since.
 */
export function logoutContinuePage(o: Common & { user: undefined; appName: string | undefined; destination: string; fields: Record<string, string> }): string {
  return layout({
    ...o,
    title: 'Signed out',
    body: html`<section class="consent">
<h1>You are signed out</h1>
<p id="notice">You are not signed in to this service. ${o.appName ? html`<strong id="${ids.consent.appName}">${o.appName}</strong> asks` : 'An app asks'} to take you back to <strong id="destination">${o.destination}</strong>.</p>
<form method="post" action="/oauth/logout/confirm" class="actions">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
${Object.entries(o.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" name="decision" value="stay" id="continue">Continue to ${o.destination}</button>
</form>
</section>`,
  });
}

/** Where a logout without a post_logout_redirect_uri ends. */
export function signedOutPage(o: Common & { signedOut: boolean }): string {
  return layout({
    ...o,
    title: o.signedOut ? 'Signed out' : 'Still signed in',
    body: html`<h1>${o.signedOut ? 'You are signed out' : 'You are still signed in'}</h1>
<p id="notice">${o.signedOut ? 'You can close this page, or sign in again.' : 'Nothing was changed.'}</p>
<p><a href="${o.signedOut ? '/signin' : '/account'}">${o.signedOut ? 'Sign in' : 'Your account'}</a></p>`,
  });
}
