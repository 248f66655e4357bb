/**
 * The sign-in history a user sees on their account page: when, from which address, with which
 * browser. Kept short (the latest KEPT_SIGN_INS) and cut to a sane length, since the address and
 * user agent come from the request.
 */
import type { SignInRecord } from '../domain/sign-ins.js';
import { CONTROL_CHARACTERS } from '../domain/text.js';
import type { Store } from '../store/types.js';

export const KEPT_SIGN_INS = 20;
const SHOWN_SIGN_INS = 10;
const MAX_USER_AGENT = 512;

interface SignInClient {
  ip: string;
  userAgent: string;
  /** The shown name of the upstream identity provider signed in through; null or left out for any other sign-in. */
  upstream?: string | null;
}

export async function recordSignIn(deps: { store: Pick<Store, 'signIns'>; now: () => number }, userId: number, client: SignInClient): Promise<void> {
  const userAgent = client.userAgent.replace(CONTROL_CHARACTERS, '').slice(0, MAX_USER_AGENT);
  await deps.store.signIns.recordSignIn(userId, { at: deps.now(), ip: client.ip.slice(0, 64), userAgent, upstream: client.upstream ?? null }, KEPT_SIGN_INS);
}

export function recentSignIns(store: Pick<Store, 'signIns'>, userId: number): Promise<SignInRecord[]> {
  return store.signIns.listSignIns(userId, SHOWN_SIGN_INS);
}

/** Every sign-in kept (the data export), newest first. */
export function allSignIns(store: Pick<Store, 'signIns'>, userId: number): Promise<SignInRecord[]> {
  return store.signIns.listSignIns(userId, KEPT_SIGN_INS);
}
