/** The server-rendered pages. Every value is escaped by `html`; scripts are files in assets/. */
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../oauth/scopes.js';
import type { SignInRecord } from '../domain/sign-ins.js';
import { accountControlSections } from './account-control.js';
import type { PageConfirmations } from './confirmation.js';
import { html, type SafeHtml } from '../domain/html.js';
import { hiddenReturnTo, layout, withReturnTo, type PageUser } from './html.js';
import { upstreamButtons } from './upstreams.js';
import { resultSlot } from './result-slot.js';
import { signInsSection } from './sign-ins.js';
import { ids } from './ids.js';
import { ACCEPTED_FORMATS, ACCEPTED_TYPES } from '../pictures/images.js';
import type { LocalPath } from '../security/return-paths.js';

interface Common {
  user: PageUser | undefined;
  csrfToken: string;
}

/** What an error page is headed, by status: what happened, as the person reads it; the message says the rest. */
const ERROR_HEADINGS: Record<number, string> = {
  400: 'This request cannot be used',
  401: 'Sign in to continue',
  403: 'You are not allowed to do this',
  404: 'Page not found',
  405: 'This address does not take that kind of request',
  409: 'This cannot be done as things are now',
  413: 'That is too large',
  415: 'That kind of content is not accepted here',
  429: 'Too many tries: wait a moment',
  500: 'Something went wrong on our side',
  503: 'The service is unavailable for a moment',
};

function errorHeading(status: number): string {
  return ERROR_HEADINGS[status] ?? (status >= 500 ? ERROR_HEADINGS[500]! : ERROR_HEADINGS[400]!);
}

export function errorPage(o: Common & { status: number; message: string }): string {
  if (o.status === 404) return notFound(o, o.message);
  const heading = errorHeading(o.status);
  return layout({
    ...o,
    title: `${heading} (error ${o.status})`,
    body: html`<h1>${heading}</h1>
<p class="error" id="error-message">${o.message}</p>
${o.status === 401 && !o.user ? html`<p><a href="/signin">Sign in</a></p>\n` : ''}<p><a href="/">Back to the home page</a></p>`,
  });
}

/**
 * A 404, whether no page has the address or the page's thing is gone (a game, a user): an ordinary
 * miss, said calmly (no error styling), with the ways on: the home page and the games.
 */
function notFound(o: Common, message: string): string {
  return layout({
    ...o,
    title: 'Page not found',
    body: html`<h1>Page not found</h1>
<p id="error-message">${message}</p>
<ul class="plain" id="ways-on"><li><a href="/">Back to the home page</a></li><li><a href="/games">Browse the games</a></li></ul>`,
  });
}

/** The page for an address no page has (a browser's GET; programs get `{message}`). */
export function notFoundPage(o: Common & { path: string }): string {
  return notFound(o, `There is no page at ${o.path}. The link may be mistyped, or the page may have moved.`);
}

/**
 * What the home page says when an action of the account page ends there (`/?done=`): a fixed
 * list, so the page never shows text taken from the address.
 */
const DONE_NOTICES: Record<string, string> = {
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out everywhere: every browser that was signed in to your account is signed out.',
  'account-deleted': 'Your account has been deleted, with your apps, games and profile picture.',
};

export function doneNotice(done: string | undefined): string | undefined {
  return done !== undefined && Object.hasOwn(DONE_NOTICES, done) ? DONE_NOTICES[done] : undefined;
}

export function homePage(o: Common & { notice?: string }): string {
  const notice = o.notice ? html`<p class="notice" id="notice" role="status">${o.notice}</p>\n` : '';
  const body = o.user
    ? html`<h1>Hello, ${o.user.name}</h1>
<ul>
<li><a href="/account">Your account</a>: bio, flair, profile picture</li>
<li><a href="/apps">Your apps</a>: register OAuth clients, rotate secrets, build sign-in links</li>
<li><a href="/games">Games</a>: play, or register your own</li>
</ul>`
    : html`<h1>Identity</h1>
<p>One account for games and the apps around them.</p>
<p><a class="button" href="/signup">Create an account</a> or <a href="/signin">sign in</a>.</p>
<p><a href="/games">Browse the games</a></p>`;
  return layout({ ...o, title: 'Identity', body: html`${notice}${body}` });
}

export function signInPage(o: Common & { error?: string; login?: string; returnTo?: LocalPath | undefined; upstreams?: Parameters<typeof upstreamButtons>[0]['upstreams'] }): string {
  return layout({
    ...o,
    title: 'Sign in',
    // Passkey sign-in (button and autofill).
    script: 'signin',
    body: html`<h1>Sign in</h1>
${o.error ? html`<p class="error" id="error-message">${o.error}</p>` : ''}
<form method="post" action="/signin" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
${hiddenReturnTo(o.returnTo)}
<label>Name or email <input name="name" autocomplete="username webauthn" required maxlength="254" value="${o.login ?? ''}"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required maxlength="256"></label>
<button type="submit">Sign in</button>
</form>
<p><button type="button" id="${ids.signIn.passkeyButton}" class="secondary">Sign in with a passkey</button></p>
${resultSlot(ids.signIn.result)}
${upstreamButtons({ upstreams: o.upstreams ?? [], csrfToken: o.csrfToken, returnTo: o.returnTo })}
<p><a href="/forgot-password" id="forgot-password">Forgot your password?</a></p>
<p>No account yet? <a href="${withReturnTo('/signup', o.returnTo)}">Sign up</a></p>`,
  });
}

export function signUpPage(o: Common & { error?: string; name?: string; email?: string; returnTo?: LocalPath | undefined; upstreams?: Parameters<typeof upstreamButtons>[0]['upstreams'] }): string {
  return layout({
    ...o,
    title: 'Sign up',
    body: html`<h1>Create an account</h1>
${o.error ? html`<p class="error" id="error-message">${o.error}</p>` : ''}
<form method="post" action="/signup" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
${hiddenReturnTo(o.returnTo)}
<label>Name <small>3-28 letters, digits, _ or -</small> <input name="name" autocomplete="username" required pattern="[A-Za-z0-9_\\-]{3,28}" value="${o.name ?? ''}"></label>
<label>Email <input name="email" type="email" autocomplete="email" required maxlength="254" value="${o.email ?? ''}"></label>
<label>Password <small>at least 8 characters</small> <input name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="256"></label>
<button type="submit">Sign up</button>
</form>
${upstreamButtons({ upstreams: o.upstreams ?? [], csrfToken: o.csrfToken, returnTo: o.returnTo })}
<p>Have an account? <a href="${withReturnTo('/signin', o.returnTo)}">Sign in</a></p>`,
  });
}

/**
 * What a sign-up answers, the same whether the address was new or taken: the mail went to the
 * address (a verification link, or to its owner a notice), and the way on is signing in.
 */
export function signUpSentPage(o: Common & { email: string; returnTo?: LocalPath | undefined }): string {
  return layout({
    ...o,
    title: 'Check your mail',
    body: html`<h1>Check your mail</h1>
<p id="sign-up-sent">We sent a mail to <strong>${o.email}</strong>. Follow its link to confirm the address.</p>
<p>Then <a href="${withReturnTo('/signin', o.returnTo)}" id="sign-in-link">sign in</a> with the name and password you chose.</p>`,
  });
}

interface ConsentView extends Common {
  user: PageUser;
  appName: string;
  ownerName: string;
  scopes: Scope[];
  /** The request's parameters, carried to POST /oauth as hidden fields. */
  fields: Record<string, string>;
  /** Set when `email` is asked for an unverified address: shown, and Authorize is disabled. */
  emailNotice?: SafeHtml;
  /** The redirect URI both buttons end at: the page names its host, where the person will be sent. */
  redirectUri: string;
  /** This authorization request as a `GET /oauth` address: "Not you?" signs out and comes back to it. */
  address: string;
}

/** Where a redirect URI sends the browser, as a person reads it: its host (with a port), or a native app's scheme. */
function destination(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `${url.protocol}${url.host}`;
}

/**
 * What a consent dialog lists: each scope asked for, as the user reads it. `offline_access` names
 * the app (OpenID Connect Core 11 asks for the person's consent to it in particular).
 */
export function scopeItems(scopes: readonly Scope[], appName?: string): SafeHtml[] {
  return scopes.map((s) =>
    s === 'offline_access' && appName !== undefined
      ? html`<li data-scope="${s}">Stay signed in to ${appName}, even when you are away <code>${s}</code></li>`
      : html`<li data-scope="${s}">${SCOPE_DESCRIPTIONS[s]} <code>${s}</code></li>`,
  );
}

export function consentPage(o: ConsentView): string {
  return layout({
    ...o,
    title: `Authorize ${o.appName}`,
    body: html`<section class="consent">
<h1><span id="${ids.consent.appName}">${o.appName}</span> wants to use your account</h1>
<p>An app by <strong id="app-owner">${o.ownerName}</strong>.</p>
<div class="consent-who">Signed in as <strong id="consent-user">${o.user.name}</strong>.
<form method="post" action="${withReturnTo('/signout', withReturnTo('/signin', o.address))}" class="inline"><input type="hidden" name="_csrf" value="${o.csrfToken}"><button type="submit" id="not-you" class="text-link">Not you? Sign out and sign in as someone else</button></form></div>
<p>If you authorize it, the app can:</p>
<ul id="scopes">${scopeItems(o.scopes, o.appName)}</ul>
${o.emailNotice ?? ''}
<form method="post" action="/oauth" class="actions">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
${Object.entries(o.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" name="decision" value="authorize" id="authorize"${o.emailNotice ? html` disabled` : ''}>Authorize</button>
<button type="submit" name="decision" value="cancel" id="cancel" class="secondary">Cancel</button>
</form>
<p class="consent-destination"><small>Either way, you will be sent to <strong id="redirect-host">${destination(o.redirectUri)}</strong>.</small></p>
</section>`,
  });
}

/** The account page's in-page navigation: each section's id and name, in the page's order. */
function accountNav(o: { email: boolean; signIns: boolean; authenticator: boolean; linkedAccounts: boolean }): SafeHtml {
  const sections: [string, string, boolean][] = [
    ['profile-settings', 'Profile', true],
    ['email-section', 'Email', o.email],
    ['sign-ins', 'Recent sign-ins', o.signIns],
    ['connected-apps', 'Connected apps', true],
    ['password', 'Password', true],
    ['passkeys', 'Passkeys', true],
    ['authenticator', 'Authenticator app', o.authenticator],
    [ids.linkedAccounts.section, 'Linked accounts', o.linkedAccounts],
    ['sessions-section', 'Sessions', true],
    ['your-data', 'Your data', true],
    ['delete-account', 'Delete account', true],
  ];
  return html`<nav aria-label="Sections of this page" class="page-nav" id="account-nav"><ul>${sections
    .filter(([, , shown]) => shown)
    .map(([id, name]) => html`<li><a href="#${id}">${name}</a></li>`)}</ul></nav>`;
}

export function accountPage(
  o: Common & {
    user: PageUser;
    emailSection?: SafeHtml;
    signIns?: readonly SignInRecord[];
    securitySections?: SafeHtml;
    linkedAccounts?: SafeHtml | undefined;
    confirmations: PageConfirmations;
  },
): string {
  return layout({
    ...o,
    title: 'Your account',
    script: 'account',
    body: html`<h1>Your account</h1>
${accountNav({ email: o.emailSection !== undefined, signIns: o.signIns !== undefined, authenticator: o.securitySections !== undefined, linkedAccounts: o.linkedAccounts !== undefined })}
<section id="profile" class="card"><img id="${ids.profile.picture}" alt="Your profile picture" width="64" height="64"><div><strong id="profile-name">${o.user.name}</strong> <span id="${ids.profile.flair}" class="flair" hidden></span><div id="${ids.profile.email}"></div><div>Played <span id="${ids.profile.playMinutes}">0</span> minutes</div></div></section>
${resultSlot(ids.profile.result)}
<section id="profile-settings" class="card"><h2>Profile</h2>
<p><a href="/users/${o.user.id}" id="public-profile-link">See your public profile</a></p>
<h3 id="bio-heading">Bio</h3>
<p id="${ids.profile.bioRemoved}" class="notice" hidden></p>
<form id="${ids.profile.bioForm}" class="stack"><textarea name="bio" id="${ids.profile.bio}" maxlength="1024" rows="4" aria-labelledby="bio-heading" aria-describedby="bio-removed"></textarea><button type="submit">Save bio</button></form>
${resultSlot(ids.profile.bioResult)}
<h3 id="flair-heading">Flair</h3>
<form id="${ids.profile.flairForm}" class="stack"><label>Equipped flair <select id="${ids.profile.flairSelect}" name="equippedFlair"></select></label><button type="submit">Equip</button></form>
${resultSlot(ids.profile.flairResult)}
<h3 id="picture-heading">Profile picture</h3>
<form id="${ids.profile.pictureForm}" class="stack"><label>New profile picture <small>${ACCEPTED_FORMATS}, at most 8 MB (an AVIF at most 1 MB)</small> <input type="file" id="${ids.profile.pictureFile}" name="file" accept="${ACCEPTED_TYPES}" required></label>
<div class="button-row"><button type="submit">Upload</button> <button type="button" id="${ids.profile.removePicture}" class="secondary" hidden>Remove picture</button></div></form>
${resultSlot(ids.profile.pictureResult)}
</section>
${o.emailSection ?? ''}
${o.signIns ? signInsSection(o.signIns) : ''}
${accountControlSections({ userName: o.user.name, afterPassword: html`${o.securitySections ?? ''}${o.linkedAccounts ?? ''}`, confirmations: o.confirmations })}`,
  });
}

export function appsPage(o: Common & { user: PageUser }): string {
  return layout({
    ...o,
    title: 'Your apps',
    script: 'apps',
    body: html`<h1>Your apps</h1>
${resultSlot(ids.apps.result)}
<section class="card" id="${ids.apps.newSecret}" hidden><h2>Client secret of <span id="${ids.apps.newSecretApp}"></span></h2>
<p>Copy it now: it is shown only once.</p><p>client_id <code id="${ids.apps.newClientId}"></code></p><p>client_secret <code id="${ids.apps.newClientSecret}"></code></p>
<p><button type="button" id="${ids.apps.copyClientSecret}" class="secondary">Copy the secret</button></p></section>
<form id="${ids.apps.registerForm}" class="stack">
<h2>Register an app</h2>
<label>Name <input name="name" id="${ids.apps.name}" required maxlength="64"></label>
<label>Redirect URIs <small>one per line, 1 to 10, matched exactly; https, or http on localhost</small><textarea id="${ids.apps.redirectUris}" name="redirect_uris" rows="3" required></textarea></label>
<label>Post-logout redirect URIs <small>optional; one per line, up to 10, matched exactly: where signing out may return to</small><textarea id="${ids.apps.postLogoutRedirectUris}" name="post_logout_redirect_uris" rows="2"></textarea></label>
<label><input type="checkbox" id="${ids.apps.public}" name="public"> <span>Public client (no secret; PKCE required) <small>for a browser or native app that cannot keep a secret</small></span></label>
<label><input type="checkbox" id="${ids.apps.refreshTokens}" name="refresh_tokens"> <span>Refresh tokens: let this app keep people signed in (offline_access) <small>it gets a refresh token when a person consents to <code>offline_access</code></small></span></label>
<label><input type="checkbox" id="${ids.apps.deviceGrant}" name="device_grant"> <span>Devices without a browser: let this app sign people in from a console, a TV or a terminal <small>the device flow: people type a code on <code>/device</code></small></span></label>
<button type="submit" id="register">Register</button>
</form>
<h2>Registered apps</h2>
<div id="${ids.apps.list}"><p>Loading…</p></div>
<template id="${ids.apps.scopeChoices}"><fieldset class="choices"><legend>Scopes</legend>${SCOPES.map((s) => html`<label><input type="checkbox" class="scope-${s}" value="${s}"${s === 'userinfo' ? html` checked` : ''}> ${s}</label> `)}</fieldset></template>`,
  });
}

type ListedGame = { id: number; title: string; authorId: number; authorName: string; url: string };

/**
 * What a signed-in person may do with a listed game: its author edits or deletes it; a moderator
 * removes someone else's, with a reason the author is shown (the service checks the mod levels).
 */
function gameControls(g: ListedGame, user: PageUser | undefined): SafeHtml | '' {
  if (!user) return '';
  if (user.id === g.authorId) {
    return html`<details class="game-edit"><summary>Edit or delete</summary>
<form class="stack game-edit-form" data-game-id="${g.id}">
<label>Title <input name="title" required maxlength="64" value="${g.title}"></label>
<label>Address it is hosted at <small>https, or http on localhost</small><input name="url" type="url" required value="${g.url}"></label>
<div class="button-row"><button type="submit">Save</button> <button type="button" class="danger game-delete" data-game-id="${g.id}">Delete the game</button></div>
</form>${resultSlot(ids.games.itemResult(g.id))}</details>`;
  }
  if ((user.modLevel ?? 0) >= 1) {
    return html`<details class="game-moderation"><summary>Remove (moderator)</summary>
<form class="stack game-remove-form" data-game-id="${g.id}">
<label>Reason <small>the author is shown it; 1-500 characters</small><input name="reason" required maxlength="500" autocomplete="off"></label>
<button type="submit" class="danger">Remove the game</button>
</form>${resultSlot(ids.games.itemResult(g.id))}</details>`;
  }
  return '';
}

export function gamesPage(o: Common & { games: ListedGame[] }): string {
  return layout({
    ...o,
    title: 'Games',
    script: o.user ? 'games' : undefined,
    body: html`<h1>Games</h1>
${
  o.games.length
    ? html`<ul id="${ids.games.list}">${o.games.map(
        (g) =>
          html`<li data-game-id="${g.id}"><a href="/play/${g.id}">${g.title}</a> by ${g.authorName} <small>(game id ${g.id}, hosted at <code>${g.url}</code>)</small>${gameControls(g, o.user)}</li>`,
      )}</ul>`
    : html`<p id="${ids.games.list}">No games yet.</p>`
}
${o.user ? resultSlot(ids.games.listResult) : ''}
${
  o.user
    ? html`<form id="${ids.games.form}" class="stack"><h2>Register a game</h2>
<label>Title <input name="title" id="${ids.games.title}" required maxlength="64"></label>
<label>Address it is hosted at <small>https, or http on localhost</small><input name="url" id="${ids.games.url}" type="url" required></label>
<button type="submit" id="register-game">Register</button></form>
${resultSlot(ids.games.result)}`
    : html`<p><a href="/signin?return_to=%2Fgames">Sign in</a> to register a game.</p>`
}`,
  });
}

interface PlayView extends Common {
  game: { id: number; title: string; url: string; authorName: string };
  origin: string;
  /** The scopes the game flow grants: the dialog lists them, play.js refuses a request for others. */
  scopes: readonly Scope[];
}

export function playPage(o: PlayView): string {
  return layout({
    ...o,
    title: o.game.title,
    script: 'play',
    body: html`<h1>${o.game.title} <small>by ${o.game.authorName}</small></h1>
<p class="play-state" id="play-state">${
      o.user
        ? html`Playing as <strong>${o.user.name}</strong>.`
        : html`You are not signed in. <a href="/signin?return_to=${encodeURIComponent(`/play/${o.game.id}`)}">Sign in</a> to let the game know who you are.`
    }</p>
<iframe id="${ids.play.frame}" src="${o.game.url}" title="${o.game.title}" data-origin="${o.origin}" data-game-id="${o.game.id}" data-logged-in="${o.user ? 'true' : 'false'}" data-scopes="${o.scopes.join(' ')}"
 sandbox="allow-scripts allow-same-origin allow-forms allow-pointer-lock allow-popups" allow="fullscreen"></iframe>
<dialog id="${ids.play.consent}">
<form method="dialog">
<h2><span id="${ids.play.consentApp}"></span> wants to use your account</h2>
<p>An app by <strong id="${ids.play.consentOwner}"></strong>, through the game <strong>${o.game.title}</strong>. It can:</p>
<ul>${scopeItems(o.scopes)}</ul>
<div class="actions"><button value="authorize" id="consent-authorize">Authorize</button> <button value="cancel" id="consent-cancel" class="secondary">Cancel</button></div>
</form>
</dialog>`,
  });
}
