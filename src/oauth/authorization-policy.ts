/**
 * Whether the session's sign-in is good enough for an authorization request, or the person must
 * sign in again first (OpenID Connect Core 3.1.2.1: `prompt=login`, `max_age`, `acr_values`):
 * a list of named checks, each small and alone. GET /oauth asks it before the consent page or a
 * remembered consent's code, POST /oauth before the code of Authorize, so neither way to a code
 * skips it (docs/oauth.md#the-sign-in-policy-of-oauth).
 */
import { asksForTwoFactors } from './claims.js';
import type { Prompt } from './prompt.js';

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

/** `acr_values` asking for two factors of a one-factor sign-in, from a person who has a second factor. */
const twoFactorsWanted: Check = async (f) => asksForTwoFactors(f.acrValues) && !f.amr.includes('mfa') && (await f.canUseTwoFactors());

const CHECKS: readonly Check[] = [promptLogin, signInOlderThanMaxAge, twoFactorsWanted];

export async function signInPolicy(facts: SignInFacts): Promise<Verdict> {
  if (facts.freshSignIn) return 'proceed';
  for (const check of CHECKS) {
    if (await check(facts)) return facts.prompt.none ? 'login_required' : 'sign_in_again';
  }
  return 'proceed';
}
