/**
 * The device page (`/device`, RFC 8628's verification page; docs/oauth.md#devices-without-a-browser):
 * the form where a person types the code a device shows, the app that code is for with what it
 * asks (as on the consent page) and the two buttons, then what the decision did. Plain forms, no
 * script.
 */
import { html, type SafeHtml } from '../domain/html.js';
import type { DeviceRequestView } from '../oauth/device.js';
import { layout, type PageUser } from './html.js';
import { ids } from './ids.js';
import { scopeItems } from './pages.js';

interface DeviceCommon {
  user: PageUser;
  csrfToken: string;
  accountNotice?: string;
}

/** `/device` with `user_code` when one was typed: where signing in (or out and in again) comes back to. */
export function deviceAddress(typed: string | undefined): string {
  return typed ? `/device?user_code=${encodeURIComponent(typed)}` : '/device';
}

/** The code's form; `typed` fills it in again, `error` says why the code was refused. */
export function deviceFormPage(o: DeviceCommon & { typed?: string; error?: string }): string {
  return layout({
    ...o,
    title: o.error ? 'Connect a device: the code was refused' : 'Connect a device',
    body: html`<section class="consent">
<h1>Connect a device</h1>
<p>Type the code your device (a console, a TV, a terminal) shows. Nothing is approved yet: next you see which app asks, and decide.</p>
<form method="post" action="/device" id="${ids.device.form}" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<label>Code shown on your device <input id="${ids.device.userCode}" name="user_code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required maxlength="64" autofocus value="${o.typed ?? ''}"${o.error ? html` aria-invalid="true" aria-describedby="${ids.device.error}"` : ''}></label>
${o.error ? html`<p class="error" id="${ids.device.error}" role="alert">${o.error}</p>\n` : ''}<button type="submit" id="${ids.device.continue}">Continue</button>
</form>
</section>`,
  });
}

/**
 * A live code's app and what it asks, with Approve and Deny. `emailNotice` (the consent page's,
 * when `email` is asked of an unverified address) is shown, and Approve is disabled.
 */
export function deviceConfirmPage(o: DeviceCommon & { view: DeviceRequestView; emailNotice?: SafeHtml }): string {
  const { app, owner, scopes, userCode } = o.view;
  const notYou = `/signout?return_to=${encodeURIComponent(`/signin?return_to=${encodeURIComponent(deviceAddress(userCode))}`)}`;
  return layout({
    ...o,
    title: `Connect a device to ${app.name}`,
    body: html`<section class="consent">
<h1><span id="${ids.device.appName}">${app.name}</span> wants to sign in to your account on a device</h1>
<p>An app by <strong id="${ids.device.appOwner}">${owner.name}</strong>, for the device that shows <strong class="user-code">${userCode}</strong>. Approve only if you started this on a device of yours.</p>
<div class="consent-who">Signed in as <strong>${o.user.name}</strong>.
<form method="post" action="${notYou}" class="inline"><input type="hidden" name="_csrf" value="${o.csrfToken}"><button type="submit" class="text-link">Not you? Sign out and sign in as someone else</button></form></div>
<p>If you approve, the app can:</p>
<ul id="scopes">${scopeItems(scopes, app.name)}</ul>
${o.emailNotice ?? ''}
<form method="post" action="/device" class="actions">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<input type="hidden" name="user_code" value="${userCode}">
<button type="submit" name="decision" value="approve" id="${ids.device.approve}"${o.emailNotice ? html` disabled` : ''}>Approve</button>
<button type="submit" name="decision" value="deny" id="${ids.device.deny}" class="secondary">Deny</button>
</form>
</section>`,
  });
}

/** What the decision did: the device's next poll gets its tokens, or is told the person denied it. */
export function deviceResultPage(o: DeviceCommon & { appName: string; decision: 'approve' | 'deny' }): string {
  const approved = o.decision === 'approve';
  const result = approved
    ? `You approved ${o.appName}. Go back to your device: it signs you in within a few seconds.`
    : `You denied ${o.appName}. Your device will say so.`;
  return layout({
    ...o,
    title: approved ? 'Device approved' : 'Device denied',
    body: html`<section class="consent">
<h1>${approved ? 'Device approved' : 'Device denied'}</h1>
<p id="${ids.device.result}" role="status">${result}</p>
${approved ? html`<p>${o.appName} is among your <a href="/account#connected-apps">connected apps</a>: revoking its access there signs the device out.</p>\n` : ''}<p><a href="/device">Connect another device</a></p>
</section>`,
  });
}
