/**
 * The sign-in policy GET and POST /oauth both ask (src/oauth/authorization-policy.ts), one check at
 * a time; and what an authorization request asks of the sign-in it leads to (freshSignInAsked),
 * which a sign-in through an upstream passes on.
 */
import { describe, expect, it, vi } from 'vitest';
import { freshSignInAsked, signInPolicy, type SignInFacts } from '../../src/oauth/authorization-policy.js';

const SIGNED_IN_AT = 1_800_000_000_000;

/** A password sign-in a minute old, a request that asks for nothing, a person with a second factor. */
function facts(over: Partial<SignInFacts> = {}): SignInFacts {
  return {
    prompt: { none: false, login: false },
    maxAge: undefined,
    acrValues: undefined,
    authTime: SIGNED_IN_AT,
    amr: ['pwd'],
    now: SIGNED_IN_AT + 60_000,
    freshSignIn: false,
    canUseTwoFactors: () => Promise.resolve(true),
    ...over,
  };
}

const LOGIN = { none: false, login: true };
const NONE = { none: true, login: false };

describe('signInPolicy', () => {
  it('lets a request that asks for nothing go on', async () => {
    expect(await signInPolicy(facts())).toBe('proceed');
  });

  it('prompt=login: a new sign-in, however recent', async () => {
    expect(await signInPolicy(facts({ prompt: LOGIN, now: SIGNED_IN_AT }))).toBe('sign_in_again');
  });

  it('max_age: a sign-in older than it asks for a new one; as old or younger, not', async () => {
    expect(await signInPolicy(facts({ maxAge: '59' }))).toBe('sign_in_again');
    expect(await signInPolicy(facts({ maxAge: '0' }))).toBe('sign_in_again');
    expect(await signInPolicy(facts({ maxAge: '60' }))).toBe('proceed');
  });

  it('acr_values=2 of a one-factor sign-in asks for a new one only from a person with a second factor', async () => {
    expect(await signInPolicy(facts({ acrValues: '2' }))).toBe('sign_in_again');
    expect(await signInPolicy(facts({ acrValues: '2', canUseTwoFactors: () => Promise.resolve(false) }))).toBe('proceed');
    expect(await signInPolicy(facts({ acrValues: '2', amr: ['pwd', 'otp', 'mfa'] }))).toBe('proceed');
    expect(await signInPolicy(facts({ acrValues: '1 2' }))).toBe('proceed');
  });

  it('asks whether the person has a second factor only when acr_values wants two of a one-factor sign-in', async () => {
    const canUseTwoFactors = vi.fn(() => Promise.resolve(true));
    await signInPolicy(facts({ canUseTwoFactors }));
    await signInPolicy(facts({ acrValues: '2', amr: ['hwk', 'user', 'mfa'], canUseTwoFactors }));
    await signInPolicy(facts({ acrValues: '2', prompt: LOGIN, canUseTwoFactors }));
    expect(canUseTwoFactors).not.toHaveBeenCalled();
  });

  it('prompt=none cannot ask: login_required where a sign-in is owed', async () => {
    expect(await signInPolicy(facts({ prompt: NONE, maxAge: '0' }))).toBe('login_required');
    expect(await signInPolicy(facts({ prompt: NONE, acrValues: '2' }))).toBe('login_required');
    expect(await signInPolicy(facts({ prompt: NONE }))).toBe('proceed');
  });

  it('the sign-in made for this very request counts, whatever was asked and whatever it reached', async () => {
    expect(await signInPolicy(facts({ freshSignIn: true, prompt: LOGIN, maxAge: '0', acrValues: '2' }))).toBe('proceed');
  });
});

describe('freshSignInAsked', () => {
  const oauth = (query: string) => `/oauth?client_id=app&redirect_uri=https%3A%2F%2Frp.example%2Fcb&${query}`;

  it('reads prompt=login (among other prompt values, and before max_age) and max_age from an /oauth address', () => {
    expect(freshSignInAsked(oauth('prompt=login'))).toEqual({ login: true });
    expect(freshSignInAsked(oauth('prompt=consent+login&max_age=60'))).toEqual({ login: true });
    expect(freshSignInAsked(oauth('max_age=0'))).toEqual({ maxAge: 0 });
    expect(freshSignInAsked(oauth('max_age=3600&prompt=consent'))).toEqual({ maxAge: 3600 });
  });

  it('asks nothing of a request that asks neither, of a max_age the contract refuses, or of any other address', () => {
    for (const returnTo of [undefined, oauth('scope=openid'), oauth('prompt=none'), oauth('max_age='), oauth('max_age=-1'), oauth('max_age=12345678901'), oauth('max_age=1e3'), '/account?prompt=login', '/oauthx?prompt=login', '/games?max_age=0']) {
      expect(freshSignInAsked(returnTo), String(returnTo)).toBeUndefined();
    }
  });
});
