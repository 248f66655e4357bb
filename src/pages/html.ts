/** The common page layout, written with the escaping template of src/domain/html.ts. */
import { html, type SafeHtml } from '../domain/html.js';
import type { PageScript } from './browser-code.js';
import { PRODUCT_NAME } from '../domain/product.js';
import type { LocalPath } from '../security/return-paths.js';

export interface PageUser {
  id: number;
  name: string;
  /** The user's modLevel (read with the user, no extra query): moderators (1 and up) get the Moderation link. */
  modLevel?: number;
}

interface LayoutOptions {
  title: string;
  /** The signed-in user, if any. */
  user: PageUser | undefined;
  /** The session's CSRF token: in a meta tag for scripts, and in the sign-out form. */
  csrfToken: string;
  body: SafeHtml;
  /** The page's script (src/pages/scripts/<name>.ts, served bundled as /assets/<name>.js), if it has one. */
  script?: PageScript;
  /** Where a sign-in or sign-up started here leads back to (the header's links keep it). */
  returnTo?: LocalPath | undefined;
  /** Said above the page's own content: why this browser was signed out (pageContext in src/http/pages.ts). */
  accountNotice?: string;
}

/**
 * `path` with `return_to` in its query, when there is one. Encoded, it stays a parameter whatever it
 * holds; the page that reads it checks it (localPath in src/security/return-paths.ts).
 */
export function withReturnTo(path: string, returnTo: string | undefined): string {
  return returnTo ? `${path}?return_to=${encodeURIComponent(returnTo)}` : path;
}

/** A form's hidden `return_to`, when there is one. */
export function hiddenReturnTo(returnTo: LocalPath | undefined) {
  return returnTo ? html`<input type="hidden" name="return_to" value="${returnTo}">` : '';
}

export function layout(o: LayoutOptions): string {
  const account = o.user
    ? html`<span class="who"><span class="who-label">Signed in as </span><strong>${o.user.name}</strong></span>
        <form method="post" action="/signout" class="inline"><input type="hidden" name="_csrf" value="${o.csrfToken}"><button type="submit" class="link">Sign out</button></form>`
    : html`<a href="${withReturnTo('/signin', o.returnTo)}">Sign in</a> <a href="${withReturnTo('/signup', o.returnTo)}">Sign up</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${o.csrfToken}">
<title>${o.title}</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
<header><nav><a href="/" class="brand">${PRODUCT_NAME}</a> <a href="/games">Games</a> <a href="/apps">Apps</a> <a href="/account">Account</a>${(o.user?.modLevel ?? 0) >= 1 ? html` <a href="/moderation">Moderation</a>` : ''}</nav><div class="session">${account}</div></header>
<main>
${o.accountNotice ? html`<p class="notice" id="account-notice" role="status">${o.accountNotice}</p>\n` : ''}${o.body}
</main>
${o.script ? html`<script src="/assets/${o.script}.js"></script>` : ''}
</body>
</html>
`.value;
}
