/** The common page layout, written with the escaping template of src/domain/html.ts. */
import { html, type SafeHtml } from '../domain/html.js';

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
  /** Scripts of /assets/ (after common.js). */
  scripts?: string[];
  /** Where a sign-in or sign-up started here leads back to (the header's links keep it). */
  returnTo?: string;
}

const withReturnTo = (path: string, returnTo: string | undefined) => (returnTo ? `${path}?return_to=${encodeURIComponent(returnTo)}` : path);

export function layout(o: LayoutOptions): string {
  const account = o.user
    ? html`<span class="who">Signed in as <strong>${o.user.name}</strong></span>
        <form method="post" action="/signout" class="inline"><input type="hidden" name="_csrf" value="${o.csrfToken}"><button type="submit" class="link">Sign out</button></form>`
    : html`<a href="${withReturnTo('/signin', o.returnTo)}">Sign in</a> <a href="${withReturnTo('/signup', o.returnTo)}">Sign up</a>`;
  const scripts = o.scripts?.length ? ['common.js', ...o.scripts] : [];
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
<header><nav><a href="/" class="brand">Identity</a> <a href="/games">Games</a> <a href="/apps">Apps</a> <a href="/account">Account</a>${(o.user?.modLevel ?? 0) >= 1 ? html` <a href="/moderation">Moderation</a>` : ''}</nav><div class="session">${account}</div></header>
<main>
${o.body}
</main>
${scripts.map((s) => html`<script src="/assets/${s}"></script>`)}
</body>
</html>
`.value;
}
