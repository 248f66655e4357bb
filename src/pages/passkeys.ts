/**
 * The account page's "Passkeys" section (part of its security area, after "Change password"):
 * the account's passkeys, filled in and managed by scripts/account-passkeys.ts through the JSON API.
 */
import { html, type SafeHtml } from '../domain/html.js';
import { passwordField, type PageConfirmations } from './confirmation.js';
import { resultSlot } from './result-slot.js';
import { ids } from './ids.js';

/** `confirmations`: an account without a password is asked for no password (it confirms in the "Confirm it is you" card). */
export function passkeysSection(confirmations: PageConfirmations): SafeHtml {
  return html`<section id="passkeys" class="card"><h2>Passkeys</h2>
<p>A passkey signs you in with this device's screen lock, fingerprint or face, or with a security key, instead of your password. Nobody can guess or phish it.</p>
<ul id="${ids.passkeys.list}"><li>Loading…</li></ul>
<form id="${ids.passkeys.addForm}" class="stack">
${passwordField(confirmations, 'Your password, to add one', ids.passkeys.addPassword)}
${resultSlot(ids.passkeys.addResult)}
<button type="submit" id="add-passkey">Add a passkey</button>
${confirmations.password ? html`<button type="button" id="${ids.passkeys.addWithPasskey}" class="secondary" hidden>Confirm with a passkey instead</button>` : ''}
</form>
${resultSlot(ids.passkeys.result)}
<p id="${ids.passkeys.unsupported}" hidden><small>This browser cannot use passkeys.</small></p>
</section>`;
}
