/**
 * The account page's "Linked accounts" section (docs/account.md#linked-accounts), after the
 * authenticator app: the accounts at upstream identity providers linked to this one, listed and
 * unlinked by scripts/account-upstream-identities.ts through the JSON API, and a plain form per
 * enabled upstream that starts linking it (`POST /signin/upstream/<slug>` with `link=true`, then
 * the upstream's own sign-in). Both ask the same way, up front: beside "Link <name>" and beside
 * each "Unlink", the password (a recent passkey confirmation lets it be left empty); an account
 * without a password has no such field and confirms in the "Confirm it is you" card
 * (src/pages/confirmation.ts). The forms of the upstreams already linked are there but hidden:
 * unlinking one shows its form again.
 */
import { html, type SafeHtml } from '../domain/html.js';
import type { PageConfirmations } from './confirmation.js';
import { ids } from './ids.js';
import { resultSlot } from './result-slot.js';

/** An enabled upstream as the section offers it, and whether this account has it linked. */
interface LinkableUpstream {
  slug: string;
  name: string;
  linked: boolean;
}

/** The section; undefined (left out of the page) when no upstream is enabled and nothing is linked. */
export function linkedAccountsSection(o: { upstreams: readonly LinkableUpstream[]; linkedCount: number; csrfToken: string; confirmations: PageConfirmations }): SafeHtml | undefined {
  if (o.upstreams.length === 0 && o.linkedCount === 0) return undefined;
  const c = o.confirmations;
  const forms = o.upstreams.map(
    (u) => html`<form method="post" action="/signin/upstream/${u.slug}" class="stack link-upstream" data-upstream="${u.slug}" aria-label="Link ${u.name}"${u.linked ? html` hidden` : ''}>
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<input type="hidden" name="link" value="true">
${c.password ? html`<label>Your password, to link ${u.name} <input type="password" name="password" autocomplete="current-password" maxlength="256"></label>\n` : ''}<button type="submit" class="secondary" id="${ids.linkedAccounts.linkButton(u.slug)}">Link ${u.name}</button>
</form>`,
  );
  const how = c.password
    ? 'Linking or unlinking one asks for your password beside its button (leave it empty for 5 minutes after confirming with a passkey).'
    : html`Linking or unlinking one asks you to confirm it is you first, in <a href="#${ids.confirmation.section}">Confirm it is you</a>.`;
  return html`<section id="${ids.linkedAccounts.section}" class="card"><h2>Linked accounts</h2>
<p>Accounts you have elsewhere that sign you in here. ${how} The last way to sign in cannot be unlinked.</p>
<ul id="${ids.linkedAccounts.list}"><li>Loading…</li></ul>
${resultSlot(ids.linkedAccounts.result)}
${forms}
</section>`;
}
