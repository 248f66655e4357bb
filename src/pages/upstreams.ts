/**
 * Signing in through an upstream identity provider (docs/account.md#signing-in-through-another-account):
 * the "Sign in with <name>" buttons of the sign-in and sign-up pages, the page where a new account's
 * public name is picked, and the page that links an identity to the account with its address once
 * that account has signed in. Plain forms, no script.
 */
import type { WaysIn } from '../accounts/factors.js';
import type { PendingUpstreamIdentity } from '../domain/upstream-sign-in.js';
import { html } from '../domain/html.js';
import { hiddenReturnTo, layout, type PageUser } from './html.js';
import { ids } from './ids.js';
import type { LocalPath } from '../security/return-paths.js';

interface Common {
  user: PageUser | undefined;
  csrfToken: string;
  accountNotice?: string;
}

/** An upstream as a button offers it. */
interface OfferedUpstream {
  slug: string;
  name: string;
}

/** One button per enabled upstream, each a form that starts its sign-in; nothing when none is enabled. */
export function upstreamButtons(o: { upstreams: readonly OfferedUpstream[]; csrfToken: string; returnTo: LocalPath | undefined }) {
  if (o.upstreams.length === 0) return '';
  const returnTo = hiddenReturnTo(o.returnTo);
  const buttons = o.upstreams.map(
    (u) => html`<li><form method="post" action="/signin/upstream/${u.slug}"><input type="hidden" name="_csrf" value="${o.csrfToken}">${returnTo}<button type="submit" class="secondary" id="upstream-${u.slug}">Sign in with ${u.name}</button></form></li>`,
  );
  return html`<section id="${ids.upstream.buttons}" aria-labelledby="upstream-sign-in-heading">
<h2 id="upstream-sign-in-heading">Or use an account you already have</h2>
<ul class="upstreams">${buttons}</ul>
</section>`;
}

/** A new identity's page: who the upstream says this is, and the public name to pick. */
export function upstreamSignUpPage(o: Common & { pending: PendingUpstreamIdentity; name: string; error?: string }): string {
  return layout({
    ...o,
    title: o.error ? 'Choose your name: it was refused' : 'Choose your name',
    body: html`<h1>Choose your public name</h1>
<p>You signed in with <strong id="${ids.upstream.provider}">${o.pending.upstreamName}</strong> as <strong id="${ids.upstream.email}">${o.pending.email ?? ''}</strong>. That address becomes your account's verified address; no password is needed, you sign in with ${o.pending.upstreamName}.</p>
<form method="post" action="/signup/upstream" id="${ids.upstream.signUpForm}" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<label>Name <small>3-28 letters, digits, _ or -; others see it</small> <input id="name" name="name" autocomplete="username" required pattern="[A-Za-z0-9_\\-]{3,28}" maxlength="64" value="${o.name}"${o.error ? html` aria-invalid="true" aria-describedby="error-message"` : ''}></label>
${o.error ? html`<p class="error" id="error-message" role="alert">${o.error}</p>\n` : ''}<button type="submit" id="${ids.upstream.signUpSubmit}">Create my account</button>
</form>
<p><a href="/signin">Cancel and sign in another way</a></p>`,
  });
}

/** The ways into the account today: a person who finds one they did not make does not link, and changes the password. */
function waysInList(w: WaysIn) {
  const items = [
    ...(w.password ? [html`<li>its password</li>`] : []),
    ...w.passkeys.map((name) => html`<li>the passkey “${name}”</li>`),
    ...w.upstreams.map((name) => html`<li>the linked ${name} account</li>`),
    ...(w.authenticatorApp ? [html`<li>an authenticator app as its second step</li>`] : []),
  ];
  return html`<section aria-labelledby="ways-in-heading"><h2 id="ways-in-heading">How this account signs in now</h2>
<ul id="${ids.upstream.linkWaysIn}">${items}</ul>
<p>If one of these is not yours, do not link: change the password and remove it on your account page first.</p></section>`;
}

/**
 * An identity whose address an account here has: sign in to that account first (again, when this
 * session was signed in before, or to another account); then confirm (or cancel) the link.
 */
export function upstreamLinkPage(o: Common & { pending: PendingUpstreamIdentity; mayConfirm: boolean; waysIn?: WaysIn | undefined; error?: string }): string {
  const { upstreamName, email } = o.pending;
  const body = o.mayConfirm && o.user
    ? html`<p>Link the <strong id="${ids.upstream.provider}">${upstreamName}</strong> account <strong id="${ids.upstream.email}">${email ?? ''}</strong> to your account <strong>${o.user.name}</strong>? Then signing in with ${upstreamName} signs in to this account.</p>
${o.waysIn ? waysInList(o.waysIn) : ''}
${o.error ? html`<p class="error" id="error-message" role="alert">${o.error}</p>\n` : ''}<form method="post" action="/signin/link" id="${ids.upstream.linkForm}" class="actions">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<button type="submit" name="decision" value="link" id="${ids.upstream.linkConfirm}">Link ${upstreamName}</button>
<button type="submit" name="decision" value="cancel" class="secondary" id="${ids.upstream.linkCancel}">Do not link</button>
</form>`
    : html`<p>An account here already has the address <strong id="${ids.upstream.email}">${email ?? ''}</strong> that <strong id="${ids.upstream.provider}">${upstreamName}</strong> gave. To sign in with ${upstreamName} from now on, sign in to that account first (with its password or passkey, and its second factor), then confirm.</p>
${o.error ? html`<p class="error" id="error-message" role="alert">${o.error}</p>\n` : ''}<p><a class="button" id="${ids.upstream.linkSignIn}" href="/signin?prompt=login&amp;return_to=%2Fsignin%2Flink">Sign in to link</a></p>
<p><a href="/forgot-password">Forgot the password of that account?</a></p>`;
  return layout({ ...o, title: `Link your ${upstreamName} account`, body: html`<h1>Link your ${upstreamName} account</h1>\n${body}` });
}
