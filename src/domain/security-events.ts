/**
 * What each security event ends: the one table (docs/account.md#what-each-security-event-ends),
 * as the lifetimes are one table (lifetimes.ts). Every path that records one of these events
 * hands its row to the store, which ends the artifacts in the same transaction as the event's own
 * change (src/store/security-events/ends.ts, the only place such revocation is written);
 * test/accounts/security-events.test.ts iterates the whole table on both databases.
 */
import type { EmailLinkPurpose } from './email-links.js';

/** What an event ends of the person's (of one app's, for a revoked grant). */
export interface Ends {
  /**
   * Browser sessions: every one, every one but the session that made the change (`others`), or
   * none. A pending link confirmation lives in a session and ends with it.
   */
  sessions: 'all' | 'others' | 'none';
  /** Access tokens not yet expired. */
  accessTokens: boolean;
  /** Refresh token families (and the access tokens issued with them). */
  refreshTokens: boolean;
  /** Authorization codes not yet redeemed. */
  codes: boolean;
  /** Device authorizations approved and not yet redeemed (the device is answered access_denied). */
  deviceCodes: boolean;
  /**
   * The moment of the change is recorded (users.credentials_changed_at): an authorization code,
   * a device approval or a pending link confirmation made before it is refused even when it was
   * written after this event's transaction (a request that read the old session first).
   */
  credentialChange: boolean;
  /** Mail links of these purposes not yet followed. */
  mailLinks: readonly EmailLinkPurpose[];
  /** Passkeys, linked upstream identities, the authenticator app and its recovery codes. */
  waysIn: boolean;
}

/** No security event: nothing ends (a verification link followed in the account's own session). */
export const NOTHING: Ends = {
  sessions: 'none',
  accessTokens: false,
  refreshTokens: false,
  codes: false,
  deviceCodes: false,
  credentialChange: false,
  mailLinks: [],
  waysIn: false,
};

/** A credential was changed or a way in removed: whoever held the old one keeps nothing of it. */
const CREDENTIAL_CHANGED: Ends = {
  ...NOTHING,
  sessions: 'others',
  accessTokens: true,
  refreshTokens: true,
  codes: true,
  deviceCodes: true,
  credentialChange: true,
  mailLinks: ['reset'],
};

/** The person's browsers signed out: what hangs off a session goes, the apps keep their tokens. */
const BROWSERS_SIGNED_OUT: Ends = { ...NOTHING, sessions: 'others', codes: true, deviceCodes: true, credentialChange: true };

/** Everything the person holds, but the account and its ways in. */
const EVERYTHING: Ends = { ...CREDENTIAL_CHANGED, sessions: 'all', mailLinks: ['verify', 'reset', 'change'] };

export const SECURITY_EVENTS = {
  /** The password changed while signed in (the current password given): that session stays. */
  password_changed: CREDENTIAL_CHANGED,
  /** A new password through a mailed link: whoever is signed in anywhere may be why. */
  password_reset: EVERYTHING,
  /** The authenticator app switched on: the browsers signed in with one factor are signed out. */
  second_factor_enabled: BROWSERS_SIGNED_OUT,
  /** The authenticator app switched off: a weaker sign-in from now on, and nobody's access it gave is in doubt (the owner is told by mail). */
  second_factor_disabled: NOTHING,
  /** A passkey removed: the usual reason is a lost or stolen device. */
  passkey_removed: CREDENTIAL_CHANGED,
  /** A linked upstream identity unlinked: as a passkey removed, whoever signs in there keeps nothing. */
  upstream_unlinked: CREDENTIAL_CHANGED,
  /** An operator removed every factor (`admin user factors --reset`). */
  factors_reset: { ...EVERYTHING, mailLinks: [] },
  /** "Sign out everywhere", this browser included. */
  signed_out_everywhere: { ...BROWSERS_SIGNED_OUT, sessions: 'all' },
  /** The person revoked an app's access: that app's tokens, codes and device approvals, no session. */
  grant_revoked: { ...NOTHING, accessTokens: true, refreshTokens: true, codes: true, deviceCodes: true },
  /** A moderator suspended the account (its sessions keep only whose they were: src/store/moderation). */
  suspended: { ...EVERYTHING, mailLinks: [] },
  /** The account is deleted: everything goes with its rows. */
  account_deleted: { ...EVERYTHING, waysIn: true },
  /** The address changed: links mailed to the old one, and a link confirmation offered for it, are void. */
  email_changed: { ...NOTHING, mailLinks: ['verify', 'reset', 'change'] },
  /**
   * An address never proven is proven by a password reset: its mailbox's owner cannot be shown to
   * have made the account's ways in, so they go, with everything signed in through them, and the
   * new password is the only way in (docs/account.md#proving-the-address). A reset and more.
   */
  address_proven: { ...EVERYTHING, waysIn: true },
} as const satisfies Record<string, Ends>;

export type SecurityEvent = keyof typeof SECURITY_EVENTS;

/** Whom an event is about: a person, or (a revoked grant) a person at one app. */
export interface EventSubject {
  userId: number;
  /** Only this app's artifacts (a revoked grant). */
  clientId?: string;
  /** The session that made the change, with `sessions: 'others'`: SHA-256 of its id. */
  keepSessionIdHash?: string;
}

/** What the store ended, for the audit trail and the mail that names it. */
export interface Ended {
  sessions: number;
  tokens: number;
  codes: number;
  deviceCodes: number;
  mailLinks: number;
  passkeys: number;
  upstreamIdentities: number;
  authenticatorApp: boolean;
}
