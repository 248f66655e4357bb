/** The account page's "Recent sign-ins" section: the user's own latest sign-ins, each with the upstream identity provider it went through, if one. */
import type { SignInRecord } from '../domain/sign-ins.js';
import { html, type SafeHtml } from '../domain/html.js';
import { ids } from './ids.js';

/**
 * A UTC time a person reads at a glance (the server does not know the reader's time zone);
 * assets/account.js shows it in the page's one date format and names the browser.
 */
function readableTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function signInsSection(signIns: readonly SignInRecord[]): SafeHtml {
  const rows = signIns.map(
    (s) => html`<tr><td><time datetime="${new Date(s.at).toISOString()}">${readableTime(s.at)}</time></td><td>${s.ip}</td><td data-user-agent="${s.userAgent}">${s.userAgent || 'unknown'}</td><td>${s.upstream ?? 'this site'}</td></tr>`,
  );
  return html`<section id="${ids.profile.signIns}" class="card-list">
<h2>Recent sign-ins</h2>
<p><small>Not you? Change your password and sign out your other sessions.</small></p>
${signIns.length === 0 ? html`<p>No sign-ins recorded yet.</p>` : html`<table><thead><tr><th>When</th><th>Address</th><th>Browser</th><th>Through</th></tr></thead><tbody>${rows}</tbody></table>`}
</section>`;
}
