/**
 * An account's sign-in factors as a whole: what the data export and the operator see of them,
 * and the operator's reset (`admin user factors --reset`, docs/operations.md#resetting-an-accounts-factors).
 */
import type { Audit } from '../audit.js';
import { NotFound } from '../domain/errors.js';
import { hasPassword, type UserRecord } from '../domain/users.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import type { Store } from '../store/types.js';
import { listPasskeys } from './passkeys.js';
import { authenticatorAppOn, isAuthenticatorAppOn } from './second-factor.js';

/** The authenticator app as the export and the CLI show it: never its seed or a code. */
interface AuthenticatorAppView {
  enabled: boolean;
  /** When it was switched on; absent while it is off (a setup waiting for its first code is off). */
  since?: number;
  recovery_codes_left: number;
}

export async function authenticatorAppView(store: Pick<Store, 'authenticatorApp'>, userId: number): Promise<AuthenticatorAppView> {
  const app = await store.authenticatorApp.getTotp(userId);
  if (!isAuthenticatorAppOn(app)) return { enabled: false, recovery_codes_left: 0 };
  return { enabled: true, since: app.confirmedAt, recovery_codes_left: await store.authenticatorApp.countRecoveryCodes(userId) };
}

/**
 * Whether the person can sign in with two factors: an authenticator app switched on, or a passkey
 * (what `acr_values=2` may send them to sign in again for, src/oauth/authorization-policy.ts).
 */
export async function canUseTwoFactors(store: Pick<Store, 'authenticatorApp' | 'passkeys'>, userId: number): Promise<boolean> {
  return (await authenticatorAppOn(store, userId)) || (await store.passkeys.listPasskeys(userId)).length > 0;
}

/** Every way into an account, as the page that confirms a new one lists them (nothing secret). */
export interface WaysIn {
  password: boolean;
  /** The passkeys' names. */
  passkeys: string[];
  /** The names of the upstream identity providers linked. */
  upstreams: string[];
  authenticatorApp: boolean;
}

export async function waysIn(store: Pick<Store, 'passkeys' | 'upstreamIdentities' | 'authenticatorApp'>, user: UserRecord): Promise<WaysIn> {
  const [passkeys, links, app] = await Promise.all([store.passkeys.listPasskeys(user.id), store.upstreamIdentities.listUpstreamIdentities(user.id), store.authenticatorApp.getTotp(user.id)]);
  return { password: hasPassword(user), passkeys: passkeys.map((p) => p.name), upstreams: links.map((l) => l.upstreamName), authenticatorApp: isAuthenticatorAppOn(app) };
}

/** Every factor of the user: passkeys (names and dates) and the authenticator app. 404 for no such user. */
export async function accountFactors(store: Store, userId: number) {
  if (!(await store.users.getUser(userId))) throw new NotFound(`User ${userId} not found`);
  const [passkeys, authenticatorApp] = await Promise.all([listPasskeys(store, userId), authenticatorAppView(store, userId)]);
  return { id: userId, passkeys, authenticator_app: authenticatorApp };
}

/**
 * An operator's reset, for a person who lost their phone and recovery codes: every passkey, the
 * authenticator app and the recovery codes go, and what the security event `factors_reset` ends
 * (every session, token, code and device approval: whoever holds one may be why the person lost
 * access), in one transaction. The password alone signs in
 * afterwards. Audited as `factors_reset`.
 */
export async function resetFactors(deps: { store: Store; audit: Audit; now: () => number }, userId: number): Promise<{ passkeys: number; totp: boolean; endedSessions: number }> {
  if (!(await deps.store.users.getUser(userId))) throw new NotFound(`User ${userId} not found`);
  const removed = await deps.store.authenticatorApp.deleteFactors(userId, SECURITY_EVENTS.factors_reset, deps.now());
  deps.audit('factors_reset', { userId, source: 'cli', passkeys: removed.passkeys, totp: removed.totp, endedSessions: removed.endedSessions });
  return removed;
}
