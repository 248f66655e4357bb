/** The server-rendered pages. Every value is escaped by `html`; scripts are files in assets/. */
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../oauth/scopes.js';
import type { SignInRecord } from '../domain/sign-ins.js';
import { accountControlSections } from './account-control.js';
import { html, type SafeHtml } from '../domain/html.js';
import { layout, type PageUser } from './html.js';
import { PASSKEY_SCRIPTS } from './passkeys.js';
import { resultSlot } from './result-slot.js';
import { signInsSection } from './sign-ins.js';

interface Common {
  user: PageUser | undefined;
  csrfToken: string;
}

export function errorPage(o: Common & { status: number; message: string }): string {
  return layout({
    ...o,
    title: `Error ${o.status}`,
    body: html`<h1>Something is wrong with this request</h1>
<p class="error" id="error-message">${o.message}</p>
<p><a href="/">Back to the home page</a></p>`,
  });
}

/** The page for an address no page has (a browser's GET; programs get `{message}`). */
export function notFoundPage(o: Common & { path: string }): string {
  return layout({
    ...o,
    title: 'Page not found',
    body: html`<h1>Page not found</h1>
<p class="error" id="error-message">There is no page at ${o.path}. The link may be mistyped, or the page may have moved.</p>
<p><a href="/">Back to the home page</a></p>`,
  });
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

function hiddenReturnTo(returnTo: string | undefined) {
  return returnTo ? html`<input type="hidden" name="return_to" value="${returnTo}">` : '';
}

function withReturnTo(path: string, returnTo: string | undefined): string {
  return returnTo ? `${path}?return_to=${encodeURIComponent(returnTo)}` : path;
}

export function signInPage(o: Common & { error?: string; login?: string; returnTo?: string }): string {
  return layout({
    ...o,
    title: 'Sign in',
    // The vendored WebAuthn library and signin.js: passkey sign-in (button and autofill).
    scripts: ['simplewebauthn-browser.js', 'signin.js'],
    body: html`<h1>Sign in</h1>
${o.error ? html`<p class="error" id="error-message">${o.error}</p>` : ''}
<p id="status" role="status"></p>
<form method="post" action="/signin" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
${hiddenReturnTo(o.returnTo)}
<label>Name or email <input name="name" autocomplete="username webauthn" required maxlength="254" value="${o.login ?? ''}"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required maxlength="256"></label>
<button type="submit">Sign in</button>
</form>
<p><button type="button" id="passkey-signin" class="secondary">Sign in with a passkey</button></p>
<p><a href="/forgot-password" id="forgot-password">Forgot your password?</a></p>
<p>No account yet? <a href="${withReturnTo('/signup', o.returnTo)}">Sign up</a></p>`,
  });
}

export function signUpPage(o: Common & { error?: string; name?: string; email?: string; returnTo?: string }): string {
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
<p>Have an account? <a href="${withReturnTo('/signin', o.returnTo)}">Sign in</a></p>`,
  });
}

/**
 * What a sign-up answers, the same whether the address was new or taken: the mail went to the
 * address (a verification link, or to its owner a notice), and the way on is signing in.
 */
export function signUpSentPage(o: Common & { email: string; returnTo?: string }): string {
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
}

/** What a consent dialog lists: each scope asked for, as the user reads it. */
function scopeItems(scopes: readonly Scope[]): SafeHtml[] {
  return scopes.map((s) => html`<li data-scope="${s}">${SCOPE_DESCRIPTIONS[s]} <code>${s}</code></li>`);
}

export function consentPage(o: ConsentView): string {
  return layout({
    ...o,
    title: `Authorize ${o.appName}`,
    body: html`<section class="consent">
<h1><span id="app-name">${o.appName}</span> wants to use your account</h1>
<p>An app by <strong id="app-owner">${o.ownerName}</strong>. You are signed in as <strong>${o.user.name}</strong>.</p>
<p>If you authorize it, the app can:</p>
<ul id="scopes">${scopeItems(o.scopes)}</ul>
${o.emailNotice ?? ''}
<form method="post" action="/oauth" class="actions">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
${Object.entries(o.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" name="decision" value="authorize" id="authorize"${o.emailNotice ? html` disabled` : ''}>Authorize</button>
<button type="submit" name="decision" value="cancel" id="cancel" class="secondary">Cancel</button>
</form>
</section>`,
  });
}

export function accountPage(
  o: Common & { user: PageUser; emailSection?: SafeHtml; signIns?: readonly SignInRecord[]; securitySections?: SafeHtml },
): string {
  return layout({
    ...o,
    title: 'Your account',
    scripts: ['account.js', 'account-control.js', ...PASSKEY_SCRIPTS, 'authenticator.js'],
    body: html`<h1>Your account</h1>
<section id="profile" class="card"><img id="picture" alt="Your profile picture" width="64" height="64"><div><strong id="profile-name">${o.user.name}</strong> <span id="profile-flair" class="flair" hidden></span><div id="profile-email"></div><div>Played <span id="play-minutes">0</span> minutes</div></div></section>
${resultSlot('account-result')}
${o.emailSection ?? ''}
<p><a href="/users/${o.user.id}" id="public-profile-link">See your public profile</a></p>
<p id="bio-removed" class="notice" hidden></p>
<form id="bio-form" class="stack"><label>Bio <textarea name="bio" id="bio" maxlength="1024" rows="4" aria-describedby="bio-removed"></textarea></label><button type="submit">Save bio</button></form>
${resultSlot('bio-result')}
<form id="flair-form" class="stack"><label>Equipped flair <select id="flair" name="equippedFlair"></select></label><button type="submit">Equip</button></form>
${resultSlot('flair-result')}
<form id="picture-form" class="stack"><label>New profile picture <small>any image, at most 8 MB</small> <input type="file" id="picture-file" name="file" accept="image/*" required></label>
<div class="button-row"><button type="submit">Upload</button> <button type="button" id="remove-picture" class="secondary" hidden>Remove picture</button></div></form>
${resultSlot('picture-result')}
${o.signIns ? signInsSection(o.signIns) : ''}
${accountControlSections({ userName: o.user.name, afterPassword: o.securitySections })}`,
  });
}

export function appsPage(o: Common & { user: PageUser }): string {
  return layout({
    ...o,
    title: 'Your apps',
    scripts: ['apps.js'],
    body: html`<h1>Your apps</h1>
<p id="status" role="status"></p>
<section class="card" id="new-secret" hidden><h2>Client secret of <span id="new-secret-app"></span></h2>
<p>Copy it now: it is shown only once.</p><p>client_id <code id="new-client-id"></code></p><p>client_secret <code id="new-client-secret"></code></p></section>
<form id="register-form" class="stack">
<h2>Register an app</h2>
<label>Name <input name="name" id="app-name" required maxlength="64"></label>
<label>Redirect URIs <small>one per line, 1 to 10, matched exactly; https, or http on localhost</small><textarea id="redirect-uris" name="redirect_uris" rows="3" required></textarea></label>
<label>Post-logout redirect URIs <small>optional; one per line, up to 10, matched exactly: where signing out may return to</small><textarea id="post-logout-redirect-uris" name="post_logout_redirect_uris" rows="2"></textarea></label>
<label><input type="checkbox" id="app-public" name="public"> Public client (no secret; PKCE required) <small>for a browser or native app that cannot keep a secret</small></label>
<button type="submit" id="register">Register</button>
</form>
<h2>Registered apps</h2>
<div id="apps"><p>Loading…</p></div>
<template id="scope-choices"><fieldset class="choices"><legend>Scopes</legend>${SCOPES.map((s) => html`<label><input type="checkbox" class="scope-${s}" value="${s}"${s === 'userinfo' ? html` checked` : ''}> ${s}</label> `)}</fieldset></template>`,
  });
}

export function gamesPage(o: Common & { games: { id: number; title: string; authorName: string; url: string }[] }): string {
  return layout({
    ...o,
    title: 'Games',
    scripts: o.user ? ['games.js'] : [],
    body: html`<h1>Games</h1>
${
  o.games.length
    ? html`<ul id="games">${o.games.map((g) => html`<li><a href="/play/${g.id}">${g.title}</a> by ${g.authorName} <small>(game id ${g.id}, hosted at <code>${g.url}</code>)</small></li>`)}</ul>`
    : html`<p id="games">No games yet.</p>`
}
${
  o.user
    ? html`<form id="game-form" class="stack"><h2>Register a game</h2>
<p id="status" role="status"></p>
<label>Title <input name="title" id="game-title" required maxlength="64"></label>
<label>Address it is hosted at <small>https, or http on localhost</small><input name="url" id="game-url" type="url" required></label>
<button type="submit" id="register-game">Register</button></form>`
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
    scripts: ['play.js'],
    body: html`<h1>${o.game.title} <small>by ${o.game.authorName}</small></h1>
<p class="play-state" id="play-state">${
      o.user
        ? html`Playing as <strong>${o.user.name}</strong>.`
        : html`You are not signed in. <a href="/signin?return_to=${encodeURIComponent(`/play/${o.game.id}`)}">Sign in</a> to let the game know who you are.`
    }</p>
<iframe id="game" src="${o.game.url}" title="${o.game.title}" data-origin="${o.origin}" data-game-id="${o.game.id}" data-logged-in="${o.user ? 'true' : 'false'}" data-scopes="${o.scopes.join(' ')}"
 sandbox="allow-scripts allow-same-origin allow-forms allow-pointer-lock allow-popups" allow="fullscreen"></iframe>
<dialog id="consent">
<form method="dialog">
<h2><span id="consent-app"></span> wants to use your account</h2>
<p>An app by <strong id="consent-owner"></strong>, through the game <strong>${o.game.title}</strong>. It can:</p>
<ul>${scopeItems(o.scopes)}</ul>
<div class="actions"><button value="authorize" id="consent-authorize">Authorize</button> <button value="cancel" id="consent-cancel" class="secondary">Cancel</button></div>
</form>
</dialog>`,
  });
}
