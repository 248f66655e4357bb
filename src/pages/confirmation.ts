/**
 * How the account page asks a person to confirm who they are before a sensitive change
 * (docs/account.md#confirming-through-a-linked-account): an account with a password is asked for it
 * beside each change (or a passkey confirmation stands in); an account without one (made through
 * an upstream) has no password field anywhere, and confirms once for every section, in the
 * "Confirm it is you" card: a new sign-in at one of its linked upstreams, or one of its passkeys.
 */
import { html, type SafeHtml } from '../domain/html.js';
import { ids } from './ids.js';
import { resultSlot } from './result-slot.js';

/** The confirmations the account has, as the page shows them. */
export interface PageConfirmations {
  /** The account has a password: each change asks for it. */
  password: boolean;
  /** Its linked upstreams that can confirm a new sign-in (enabled, OpenID Connect): one "Confirm with <name>" each, without a password only. */
  upstreams: readonly { slug: string; name: string }[];
  /** A confirmation of this session stands now (without a password only). */
  confirmed: boolean;
  csrfToken: string;
}

/**
 * The password field of a change, for an account with a password; for one without, a pointer to
 * the card where it confirms instead.
 */
export function passwordField(c: PageConfirmations, label: string, id: string): SafeHtml {
  if (!c.password) return confirmFirstNote();
  return html`<label>${label} <input type="password" id="${id}" name="password" autocomplete="current-password" required maxlength="256"></label>`;
}

/** Where a change of an account without a password says how it is confirmed. */
export function confirmFirstNote(): SafeHtml {
  return html`<p>Confirm it is you first, in <a href="#${ids.confirmation.section}">Confirm it is you</a>.</p>`;
}

/** The "Confirm it is you" card, for an account without a password; nothing for one with a password. */
export function confirmationSection(c: PageConfirmations): SafeHtml | '' {
  if (c.password) return '';
  const upstreams = c.upstreams.map(
    (u) => html`<form method="post" action="/signin/upstream/${u.slug}" class="inline confirm-upstream">
<input type="hidden" name="_csrf" value="${c.csrfToken}">
<input type="hidden" name="confirm" value="true">
<input type="hidden" name="return_to" value="/account#${ids.confirmation.section}">
<button type="submit" class="secondary" id="${ids.confirmation.upstreamButton(u.slug)}">Confirm with ${u.name}</button>
</form>`,
  );
  return html`<section id="${ids.confirmation.section}" class="card"><h2>Confirm it is you</h2>
<p>Your account has no password. Before you set one, add or remove a passkey, set up an authenticator app, link or unlink an account, or delete your account, confirm it is you: sign in again with an account linked to yours, or use one of your passkeys. It counts for 5 minutes.</p>
<p id="${ids.confirmation.status}"${c.confirmed ? '' : html` hidden`}><strong>Confirmed.</strong> For 5 minutes, these changes ask for nothing more.</p>
<div class="button-row">${upstreams}<button type="button" id="${ids.confirmation.passkey}" class="secondary" hidden>Confirm with a passkey</button></div>
${resultSlot(ids.confirmation.result)}
</section>`;
}
