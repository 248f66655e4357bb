/**
 * The OpenID Foundation's RP-Initiated Logout plan (`oidcc-rp-initiated-logout-certification-test-plan`,
 * OIDCCRpInitiatedLogoutTestPlan; AbstractOIDCCRpInitiatedLogout): its discovery module, then ten
 * modules that sign in (the happy flow, with a 128-character state) and send the browser to the
 * end_session_endpoint with the module's parameters. Two expect the browser back at the
 * post-logout redirect URI and then a prompt=none request to fail for want of a sign-in; the
 * others must never redirect, and show a page (a screenshot in the suite; here the page is read).
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpointsAreHttps, fetchDiscovery } from './discovery.js';
import { moduleTest, reportTable, runModule, type ModuleRun, type Verdict } from './harness.js';
import {
  authorizationRequest,
  authorizationUrl,
  browse,
  Browser,
  checkErrorRedirect,
  configure,
  happyFlow,
  POST_LOGOUT_REDIRECT_URI,
  randomValue,
  RP_BASE,
  startOp,
  type Landing,
  type Op,
  type Server,
  type Tokens,
} from './relying-party.js';

let op: Op;
let https: Op;
const verdicts: Verdict[] = [];
beforeAll(async () => {
  op = await startOp();
  https = await startOp('https://idp.conformance.test');
});
afterAll(async () => {
  process.stdout.write(`\noidcc-rp-initiated-logout-certification-test-plan\n${reportTable(verdicts)}\n`);
  await op?.close();
  await https?.close();
});

const module = (name: string, body: (m: ModuleRun) => Promise<void>): void => moduleTest(verdicts, name, body);

/**
 * CreateRandomEndSessionState: 50 letters, 10 digits and 30 punctuation characters, with `+`,
 * space and `;` made `~`: the OP must give it back exactly.
 */
function endSessionState(): string {
  const pick = (chars: string, n: number): string => Array.from({ length: n }, () => chars[Math.floor(Math.random() * chars.length)]).join('');
  const punctuation = [[0x20, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]].flatMap(([from, to]) => Array.from({ length: to! - from! + 1 }, (_, i) => String.fromCharCode(from! + i))).join('');
  const state = pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 50) + pick('0123456789', 10) + pick(punctuation, 30);
  return state.replace(/[+ ;]/g, '~');
}

interface SignedIn {
  server: Server;
  browser: Browser;
  tokens: Tokens;
}

/** Phase 1: the happy flow with client_secret_basic and a 128-character state. */
async function signIn(m: ModuleRun): Promise<SignedIn> {
  const server = await configure(m, op, 'client_secret_basic');
  const browser = new Browser(op);
  const { tokens } = await happyFlow(m, op, server, browser, { state: randomValue(128) });
  return { server, browser, tokens };
}

/** Phase 2: BuildRedirectToEndSessionEndpoint with the module's parameters (GET, in the same browser). */
async function endSession(s: SignedIn, params: Record<string, string>): Promise<Landing> {
  const endpoint = s.server.metadata.end_session_endpoint as string;
  return browse(s.browser, op, { url: `${endpoint}?${new URLSearchParams(params)}` });
}

/** Phase 3 of the modules that come back: a prompt=none request must now fail for want of a sign-in. */
async function promptNoneFails(m: ModuleRun, s: SignedIn): Promise<void> {
  const sent = authorizationRequest(op.client, { prompt: 'none' }, { state: randomValue(128) });
  const landing = await browse(s.browser, op, { url: authorizationUrl(s.server, sent) });
  checkErrorRedirect(m, s.server, landing, sent, ['interaction_required', 'login_required', 'account_selection_required', 'consent_required'], 'CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface');
}

/** The post-logout redirect of the two modules that expect one. */
function postLogoutRedirect(m: ModuleRun, landing: Landing): URL {
  const back = m.extract('ExpectPostLogoutRedirect', 'callback' in landing ? landing.callback : undefined, `no redirect: HTTP ${'status' in landing ? landing.status : ''}`);
  m.require('ExpectPostLogoutRedirect', () => (`${back.origin}${back.pathname}` === POST_LOGOUT_REDIRECT_URI ? undefined : `redirected to ${back.origin}${back.pathname}`));
  m.check('CheckForUnexpectedParametersInPostLogoutRedirect', 'WARNING', () => {
    const unexpected = [...back.searchParams.keys()].filter((k) => k !== 'state');
    return unexpected.length ? `unexpected ${unexpected.join(', ')}` : undefined;
  });
  return back;
}

/**
 * A module that must not redirect: any request to the RP's addresses fails it; the page shown is
 * what the screenshot would show (`expected`: text the page must carry).
 */
function noRedirect(m: ModuleRun, landing: Landing, placeholder: string, expected: { status: number; text: string }): void {
  m.require(placeholder, () => ('callback' in landing ? `the OP redirected to ${landing.callback.origin}${landing.callback.pathname}` : undefined));
  if ('callback' in landing) return;
  m.check(placeholder, 'FAILURE', () => (landing.status === expected.status && landing.page.includes(expected.text) ? undefined : `HTTP ${landing.status}, without "${expected.text}"`));
  m.placeholder(`HTTP ${landing.status}: ${expected.text}`);
}

describe('oidcc-rp-initiated-logout-certification-test-plan', () => {
  it('oidcc-rp-initiated-logout-discovery-endpoint-verification', async () => {
    const verdict = await runModule('oidcc-rp-initiated-logout-discovery-endpoint-verification', async (m) => {
      const d = await fetchDiscovery(m, https, false);
      allEndpointsAreHttps(m, d);
      m.check('CheckDiscEndSessionEndpoint', 'FAILURE', () =>
        typeof d.end_session_endpoint === 'string' && URL.canParse(d.end_session_endpoint) && new URL(d.end_session_endpoint).protocol === 'https:' ? undefined : 'no https end_session_endpoint',
      );
    });
    verdicts.push(verdict);
    expect(verdict.failures).toEqual([]);
  });

  module('oidcc-rp-initiated-logout', async (m) => {
    const s = await signIn(m);
    const state = endSessionState();
    const back = postLogoutRedirect(m, await endSession(s, { id_token_hint: s.tokens.idToken, post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI, state }));
    m.check('CheckPostLogoutState', 'FAILURE', () => (back.searchParams.get('state') === state ? undefined : `state ${back.searchParams.get('state')} is not ${state}`));
    await promptNoneFails(m, s);
  });

  module('oidcc-rp-initiated-logout-bad-post-logout-redirect-uri', async (m) => {
    const s = await signIn(m);
    const landing = await endSession(s, { id_token_hint: s.tokens.idToken, post_logout_redirect_uri: `${RP_BASE}/bad_post_logout_redirect_uri`, state: endSessionState() });
    noRedirect(m, landing, 'ExpectPostLogoutRedirectUriNotRegisteredErrorPage', { status: 400, text: 'The post_logout_redirect_uri is not registered for this app' });
  });

  module('oidcc-rp-initiated-logout-modified-id-token-hint', async (m) => {
    const s = await signIn(m);
    const payload = s.tokens.idToken.split('.')[1]!;
    const modified = `${Buffer.from('{"alg": "none"}').toString('base64url')}.${payload}.`;
    const landing = await endSession(s, { id_token_hint: modified, post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI, state: endSessionState() });
    noRedirect(m, landing, 'ExpectInvalidIdTokenHintErrorPage', { status: 400, text: 'The id_token_hint is not an ID token this service issued' });
  });

  module('oidcc-rp-initiated-logout-no-id-token-hint', async (m) => {
    const s = await signIn(m);
    const landing = await endSession(s, { post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI, state: endSessionState() });
    noRedirect(m, landing, 'ExpectIdTokenHintRequiredErrorPage', { status: 400, text: 'A post_logout_redirect_uri needs an id_token_hint or a client_id that names the app' });
  });

  module('oidcc-rp-initiated-logout-no-params', async (m) => {
    const s = await signIn(m);
    noRedirect(m, await endSession(s, {}), 'ExpectSuccessfulLogoutPage', { status: 200, text: '<h1>Sign out?</h1>' });
  });

  module('oidcc-rp-initiated-logout-no-post-logout-redirect-uri', async (m) => {
    const s = await signIn(m);
    const landing = await endSession(s, { id_token_hint: s.tokens.idToken, state: endSessionState() });
    noRedirect(m, landing, 'ExpectSuccessfulLogoutPage', { status: 200, text: '<h1>You are signed out</h1>' });
  });

  module('oidcc-rp-initiated-logout-no-state', async (m) => {
    const s = await signIn(m);
    const back = postLogoutRedirect(m, await endSession(s, { id_token_hint: s.tokens.idToken, post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI }));
    m.check('CheckNoPostLogoutState', 'FAILURE', () => (back.searchParams.has('state') ? 'a state came back' : undefined));
    await promptNoneFails(m, s);
  });

  module('oidcc-rp-initiated-logout-only-state', async (m) => {
    const s = await signIn(m);
    noRedirect(m, await endSession(s, { state: endSessionState() }), 'ExpectSuccessfulLogoutPage', { status: 200, text: '<h1>Sign out?</h1>' });
  });

  module('oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri', async (m) => {
    const s = await signIn(m);
    const landing = await endSession(s, { id_token_hint: s.tokens.idToken, post_logout_redirect_uri: `${POST_LOGOUT_REDIRECT_URI}?foo=bar`, state: endSessionState() });
    noRedirect(m, landing, 'ExpectPostLogoutRedirectUriNotRegisteredErrorPage', { status: 400, text: 'The post_logout_redirect_uri is not registered for this app' });
  });

  module('oidcc-rp-initiated-logout-bad-id-token-hint', async (m) => {
    // GenerateJWKsFromClientSecret: the client secret must be at least 32 bytes to sign with HS256.
    m.require('GenerateJWKsFromClientSecret', () => (Buffer.byteLength(op.client.client_secret) >= 32 ? undefined : 'client_secret shorter than 32 bytes'));
    const s = await signIn(m);
    const now = Math.floor(op.t.clock.now() / 1000);
    const forged = await new SignJWT({ iss: op.client.client_id, sub: 'SubjectID', aud: s.server.metadata.issuer as string, nonce: 'flibble', iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(op.client.client_secret));
    const landing = await endSession(s, { id_token_hint: forged, post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI, state: endSessionState() });
    noRedirect(m, landing, 'ExpectInvalidIdTokenHintErrorPage', { status: 400, text: 'The id_token_hint is not an ID token this service issued' });
  });
});
