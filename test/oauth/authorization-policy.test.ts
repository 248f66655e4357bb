/** The sign-in policy GET and POST /oauth both ask (src/oauth/authorization-policy.ts), one check at a time. */
import { describe, expect, it, vi } from 'vitest';
import { signInPolicy, type SignInFacts } from '../../src/oauth/authorization-policy.js';

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
