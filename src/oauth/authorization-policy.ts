/**
 * The authorization decision of the traditional flow (RFC 6749 4.1.1, OpenID Connect Core 3.1.2.1),
 * as named steps: what an authorization request gets (answerAuthorizationRequest: GET /oauth, and
 * POST /oauth without a `decision`), and what the consent page's decision gets (answerConsent).
 *
 * Its sign-in policy (signInPolicy): whether the session's sign-in is good enough for the request,
 * or the person must sign in again first (Core 3.1.2.1: `prompt=login`, `max_age`, `acr_values`):
 * a list of named checks, each small and alone. GET /oauth asks it before the consent page or a
 * remembered consent's code, POST /oauth before the code of Authorize, so neither way to a code
 * skips it (docs/oauth.md#the-sign-in-policy-of-oauth).
 *
 * What the session holds is read through an AuthorizationSession the HTTP shell gives
 * (src/http/authorization.ts), each part only when the decision comes to it.
 */
import type { operations } from '../../generated/api.js';
import { canUseTwoFactors } from '../accounts/factors.js';
import type { Audit } from '../audit.js';
import type { Config } from '../config.js';
import type { UserRecord } from '../domain/users.js';
import { AUTHORIZE_FIELDS, checkRequestedAccess, checkRequestShape, decide, authorizationErrorRedirect, resolveClient, type ResolvedClient } from './authorize.js';
import { asksForTwoFactors } from './claims.js';
import type { Deps } from './deps.js';
import { issueCode } from './codes.js';
import { recordConsent, useRememberedGrant } from './consent.js';
import { parsePrompt, redirectWithIss, silentError, type Prompt } from './prompt.js';
import type { Scope } from './scopes.js';

/** What the policy looks at: the request's parameters and the session's sign-in, as plain values. */
export interface SignInFacts {
  prompt: Pick<Prompt, 'none' | 'login'>;
  /** The request's `max_age`: whole seconds as sent (the contract's pattern), if sent. */
  maxAge: string | undefined;
  /** The request's `acr_values`, if sent. */
  acrValues: string | undefined;
  /** When the person signed in to this session (auth_time, ms). */
  authTime: number;
  /** How they signed in (RFC 8176 values). */
  amr: readonly string[];
  now: number;
  /**
   * Whether the session's sign-in is the fresh one made for this very request: it then counts,
   * whatever it reached, so a sign-in that again reached one factor goes on instead of looping.
   */
  freshSignIn: boolean;
  /** Whether the person could sign in with two factors: asked only when acr_values wants two of a one-factor session. */
  canUseTwoFactors: () => Promise<boolean>;
}

/** Go on; send the person to sign in again and back; or, with prompt=none, OpenID Connect's error. */
type Verdict = 'proceed' | 'sign_in_again' | 'login_required';

/** One reason to ask for a new sign-in. */
type Check = (facts: SignInFacts) => boolean | Promise<boolean>;

/** `prompt=login`: a new sign-in, however recent the session's. */
const promptLogin: Check = (f) => f.prompt.login;

/** `max_age`: the session's sign-in is older than the app accepts. */
const signInOlderThanMaxAge: Check = (f) => f.maxAge !== undefined && f.now - f.authTime > Number(f.maxAge) * 1000;

/** `acr_values` asking for two factors of a one-factor sign-in, from a person who can use two (a passkey with user verification, or the authenticator app). */
const twoFactorsWanted: Check = async (f) => asksForTwoFactors(f.acrValues) && !f.amr.includes('mfa') && (await f.canUseTwoFactors());

const CHECKS: readonly Check[] = [promptLogin, signInOlderThanMaxAge, twoFactorsWanted];

export async function signInPolicy(facts: SignInFacts): Promise<Verdict> {
  if (facts.freshSignIn) return 'proceed';
  for (const check of CHECKS) {
    if (await check(facts)) return facts.prompt.none ? 'login_required' : 'sign_in_again';
  }
  return 'proceed';
}

/** What an authorization request asks of the sign-in it leads to: a new one (`prompt=login`), or one no older than `max_age` seconds. */
export type FreshSignIn = { login: true } | { maxAge: number };

/**
 * What the authorization request at `returnTo` (the `/oauth?...` address a sign-in goes back to)
 * asks of that sign-in, as promptLogin and signInOlderThanMaxAge read it; undefined for any other
 * address, or a request that asks neither. A sign-in through an upstream passes it on and has the
 * upstream prove it (docs/account.md#re-authentication-through-an-upstream). Whoever drives the
 * browser can change `return_to`, but a sign-in made for another address than the request's is not
 * taken as fresh by it (takeFreshSignIn in src/oauth/session-state.ts).
 */
export function freshSignInAsked(returnTo: string | undefined): FreshSignIn | undefined {
  if (returnTo === undefined) return undefined;
  let address: URL;
  try {
    address = new URL(returnTo, 'http://return-to.invalid');
  } catch {
    return undefined;
  }
  if (address.pathname !== '/oauth') return undefined;
  const prompt = parsePrompt(address.searchParams.get('prompt') ?? undefined);
  if (!('error' in prompt) && prompt.login) return { login: true };
  // The contract's pattern for max_age: any other value is refused at /oauth before the policy.
  const maxAge = address.searchParams.get('max_age');
  return maxAge !== null && /^[0-9]{1,10}$/.test(maxAge) ? { maxAge: Number(maxAge) } : undefined;
}

/** The request's parameters, as `GET /oauth` declares them (POST /oauth sends the same as a form). */
export type AuthorizationRequest = NonNullable<operations['getAuthorize']['parameters']['query']>;

/** What the decision needs of the app: the store, the clock, the audit trail and PUBLIC_URL (the issuer). */
type AuthorizationDeps = Deps & { audit: Audit; config: Pick<Config, 'publicUrl'> };

/**
 * The session, as the decision asks it, in this order: who is signed in (asked once the request
 * is known to be well formed), then when and how they signed in.
 */
interface SignedInSession {
  signedInUser(): Promise<Pick<UserRecord, 'id' | 'emailVerifiedAt'> | undefined>;
  /** When the person signed in (auth_time, ms); undefined for a session that never recorded it. */
  authTime(): number | undefined;
  /** How they signed in (RFC 8176 values). */
  amr(): readonly string[];
}

/** The session of an authorization request (GET /oauth, or POST /oauth without a decision). */
export interface AuthorizationSession extends SignedInSession {
  /** Takes the sign-in this very request led to, if it did (it counts once: takeFreshSignIn in src/oauth/session-state.ts). */
  takeFreshSignIn(now: number): boolean;
  /** Notes, for the consent page's decision, that the session's fresh sign-in stands behind the page shown for `clientId`. */
  noteSignInBehindConsent(clientId: string): void;
}

/** The session of the consent page's decision (POST /oauth with `decision`). */
export interface ConsentSession extends SignedInSession {
  /** Takes what GET /oauth noted (noteSignInBehindConsent) when it showed the page for `clientId`: whether it counts. */
  takeSignInBehindConsent(now: number, clientId: string): boolean;
}

/** Where the request goes: back to the client (a code or an error), to sign in (again), or to the consent page. */
export type AuthorizationAnswer =
  | { to: 'client'; location: string }
  | { to: 'sign_in' }
  | { to: 'sign_in_again' }
  | {
      to: 'consent';
      client: ResolvedClient;
      scopes: Scope[];
      /** The request's parameters, carried by the page's form to the decision (AUTHORIZE_FIELDS). */
      fields: Record<string, string>;
      /**
       * The email scope is asked of a person whose address is not verified: the page says so before
       * they try (the rule is where codes are issued, src/oauth/codes.ts).
       */
      emailNotVerified: boolean;
    };

/** The answers that are a redirect: every one but the consent page. */
type RedirectAnswer = Exclude<AuthorizationAnswer, { to: 'consent' }>;

const toClient = (location: string): RedirectAnswer => ({ to: 'client', location });

/** The sign-in policy's verdict as an answer: undefined to go on. */
function verdictAnswer(verdict: Verdict, client: ResolvedClient, state: string | undefined, issuer: string): RedirectAnswer | undefined {
  if (verdict === 'login_required') return toClient(silentError(client, 'login_required', state, issuer));
  if (verdict === 'sign_in_again') return { to: 'sign_in_again' };
  return undefined;
}

/** The request's parameters the consent page's form carries back to POST /oauth. */
function formFields(params: AuthorizationRequest): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of AUTHORIZE_FIELDS) if (params[name] !== undefined) fields[name] = params[name];
  return fields;
}

/**
 * Answers an authorization request, in this order: the client and its redirect URI (a 400 error
 * page when wrong, never a redirect); `prompt`; the request's shape, refused before anyone signs
 * in; who is signed in (`prompt=none` refuses to ask); the sign-in policy; the access asked for
 * (scopes, PKCE); a remembered consent, which gets its code without the page; else the consent page.
 */
export async function answerAuthorizationRequest(deps: AuthorizationDeps, params: AuthorizationRequest, session: AuthorizationSession): Promise<AuthorizationAnswer> {
  const client = await resolveClient(deps.store, params);
  const issuer = deps.config.publicUrl;
  const prompt = parsePrompt(params.prompt);
  if ('error' in prompt) return toClient(redirectWithIss(client, { error: prompt.error, error_description: prompt.description }, params.state, issuer));
  // A request this service never answers with a code is refused before anyone signs in.
  const shape = checkRequestShape(params);
  if (shape) return toClient(authorizationErrorRedirect(client, shape, params.state, issuer));
  const user = await session.signedInUser();
  if (!user) return prompt.none ? toClient(silentError(client, 'login_required', params.state, issuer)) : { to: 'sign_in' };
  // The sign-in this request may have led to is taken here once, so the request goes on after it
  // whatever it reached: no loop (docs/oauth.md#how-the-person-signed-in-amr-and-acr).
  const now = deps.now();
  const authTime = session.authTime() ?? now;
  const amr = session.amr();
  const freshSignIn = session.takeFreshSignIn(now);
  const verdict = await signInPolicy({
    prompt,
    maxAge: params.max_age,
    acrValues: params.acr_values,
    authTime,
    amr,
    now,
    freshSignIn,
    canUseTwoFactors: () => canUseTwoFactors(deps.store, user.id),
  });
  const again = verdictAnswer(verdict, client, params.state, issuer);
  if (again) return again;
  const requested = checkRequestedAccess(params, client.app);
  if ('error' in requested) return toClient(authorizationErrorRedirect(client, requested, params.state, issuer));

  // Remembered consent: an app already granted these scopes gets its code without the page.
  const ask = { userId: user.id, clientId: client.app.clientId, scopes: requested.scopes };
  if (!prompt.consent && (await useRememberedGrant(deps, ask))) {
    const { code } = await issueCode(deps, {
      ...ask,
      scope: requested.scopes.join(' '),
      redirectUri: client.redirectUri,
      codeChallenge: requested.codeChallenge,
      nonce: requested.nonce,
      authTime,
      amr,
    });
    return toClient(redirectWithIss(client, { code }, params.state, issuer));
  }
  if (prompt.none) return toClient(silentError(client, 'consent_required', params.state, issuer));

  const fields = formFields(params);
  // The decision is asked the same policy, with the same fields; the sign-in just taken must
  // count there too, and only the session can say so (takeSignInBehindConsent).
  if (freshSignIn) session.noteSignInBehindConsent(client.app.clientId);
  return { to: 'consent', client, scopes: requested.scopes, fields, emailNotVerified: requested.scopes.includes('email') && user.emailVerifiedAt === null };
}

/**
 * Answers the consent page's decision: Authorize gets a code (and the consent is remembered),
 * Cancel `access_denied`. Authorize is asked the sign-in policy GET /oauth asked before the page,
 * with the fields the page carried: whoever holds the session and its CSRF token gets no code by
 * posting here directly with prompt=login, max_age or acr_values. The sign-in GET took as fresh
 * counts only through what GET noted in the session (docs/oauth.md#the-sign-in-policy-of-oauth).
 * Cancel is never held back: declining needs no proof of who one is.
 */
export async function answerConsent(
  deps: AuthorizationDeps,
  form: AuthorizationRequest & { decision: 'authorize' | 'cancel' },
  session: ConsentSession,
): Promise<RedirectAnswer> {
  const decision = form.decision;
  const client = await resolveClient(deps.store, form);
  const issuer = deps.config.publicUrl;
  const user = await session.signedInUser();
  if (!user) return { to: 'sign_in' };
  const prompt = parsePrompt(form.prompt);
  if ('error' in prompt) return toClient(redirectWithIss(client, { error: prompt.error, error_description: prompt.description }, form.state, issuer));
  const now = deps.now();
  const authTime = session.authTime() ?? now;
  const amr = session.amr();
  if (decision === 'authorize') {
    const verdict = await signInPolicy({
      prompt,
      maxAge: form.max_age,
      acrValues: form.acr_values,
      authTime,
      amr,
      now,
      freshSignIn: session.takeSignInBehindConsent(now, client.app.clientId),
      canUseTwoFactors: () => canUseTwoFactors(deps.store, user.id),
    });
    const again = verdictAnswer(verdict, client, form.state, issuer);
    if (again) return again;
  }
  // The fields GET /oauth carried to the page, checked as GET checked them before sign-in.
  const requested = checkRequestShape(form) ?? checkRequestedAccess(form, client.app);
  if ('error' in requested) return toClient(authorizationErrorRedirect(client, requested, form.state, issuer));
  const location = await decide(deps, { client, requested, userId: user.id, authTime, amr, state: form.state, decision, issuer });
  if (decision === 'authorize') {
    await recordConsent(deps, { userId: user.id, clientId: client.app.clientId, scopes: requested.scopes, flow: 'traditional' });
  }
  return toClient(location);
}
