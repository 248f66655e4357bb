/**
 * The audit trail: security events as structured log lines, one per event, each with an `event`
 * field naming it. Never pass a secret (password, code, token, client secret, link) as a field:
 * ids, names, client ids, addresses and user agents only.
 */
import type { Logger } from 'pino';
import type { components } from '../generated/api.js';
import type { ModerationActionKind } from './domain/moderation.js';

type Scope = components['schemas']['Scope'];

/** A browser request's client, as the sign-in history records it. */
interface Client {
  ip: string;
  userAgent: string;
}

/**
 * Every audit event and the fields its line carries, named the same way on every event: `userId`
 * for the user it concerns, `clientId` for an app, `ip` for the client address.
 */
export interface AuditEvents {
  /** `upstream`: the slug of the upstream identity provider signed in (or up) through; absent otherwise. */
  sign_in: { userId: number; upstream?: string } & Client;
  sign_up: { userId: number; upstream?: string } & Client;
  /**
   * A sign-in through upstream `upstream` (its slug) that signed nobody in: the person cancelled
   * there (`cancelled`), it answered an error (`refused`), the callback matched no sign-in this
   * browser started (`not_started`), it could not be reached or answered that it cannot sign in
   * now (`unreachable`), its answer could not be used (`upstream_error`), its client secret could
   * not be unsealed with SESSION_SECRET (`secret_unreadable`), it did not say the address is
   * verified (`email_not_verified`), or an account here has the address without ever having
   * proven it (`address_unproven`), or it did not prove the fresh sign-in an app asked for
   * (`not_fresh`), or a confirmation from the account page brought back an identity not linked to
   * the account that asked (`not_linked`). Each is also a warning in the log, with what went wrong.
   */
  upstream_sign_in_failed: {
    upstream: string;
    ip: string;
    reason: 'cancelled' | 'refused' | 'not_started' | 'unreachable' | 'upstream_error' | 'secret_unreadable' | 'email_not_verified' | 'address_unproven' | 'not_fresh' | 'not_linked';
  };
  /**
   * The signed-in person (of an account without a password) confirmed who they are by a new sign-in
   * at an upstream where their account is linked: for 5 minutes it stands in for the password.
   */
  upstream_confirmed: { userId: number; upstream: string; ip: string };
  /** An upstream identity was linked to the account: signing in there now signs in here. */
  upstream_identity_linked: { userId: number; upstream: string; ip: string };
  /** A linked upstream identity was unlinked from the account (`unlinkUpstreamIdentity`): signing in there no longer signs in here. */
  upstream_identity_unlinked: { userId: number; upstream: string; ip: string };
  /**
   * `userId` when the login (or the passkey) names an account; never the login as typed.
   * `passkey_counter`: the passkey's signature counter did not grow (a cloned authenticator?).
   * `step_exhausted`: an owed second step took its limit of wrong codes and ended.
   */
  sign_in_failed: {
    userId?: number;
    ip: string;
    reason: 'rate_limited' | 'account_locked' | 'wrong_password' | 'unknown_account' | 'passkey_unknown' | 'passkey_invalid' | 'passkey_counter' | 'wrong_code' | 'step_exhausted';
  };
  sign_out: { userId: number; ip: string } | { userId: number; scope: 'one' } | { userId: number; scope: 'everywhere'; endedSessions: number };
  passkey_added: { userId: number; passkeyId: number; ip: string };
  passkey_removed: { userId: number; passkeyId: number; ip: string };
  password_changed: { userId: number; endedSessions: number };
  /** An account without a password (made through an upstream) set its first one (`setFirstPassword`). */
  password_set: { userId: number; ip: string };
  /** The authenticator app switched on or off, or its recovery codes replaced (the public name says "second factor"). */
  second_factor_changed:
    | { userId: number; change: 'totp_enabled'; endedSessions: number }
    | { userId: number; change: 'totp_disabled' | 'recovery_codes_replaced' };
  /** A recovery code was taken at the second step of a sign-in (each works once). */
  recovery_code_used: { userId: number; ip: string };
  /** The signed-in person confirmed who they are with a passkey (it stands in for the password for 5 minutes). */
  passkey_confirmed: { userId: number; ip: string };
  /** An operator removed every factor of the account (`admin user factors --reset`). */
  factors_reset: { userId: number; source: 'cli'; passkeys: number; totp: boolean; endedSessions: number };
  app_created: { userId: number; clientId: string; ip: string };
  app_secret_rotated: { userId: number; clientId: string; ip: string };
  /** `fields`: what the owner changed (`name`, `redirect_uris`, `post_logout_redirect_uris`), never the values. */
  app_updated: { userId: number; clientId: string; fields: string[]; ip: string };
  app_deleted: { userId: number; clientId: string; ip: string };
  game_created: { userId: number; gameId: number; ip: string };
  /** `fields`: what the author changed (`title`, `url`). */
  game_updated: { userId: number; gameId: number; fields: string[]; ip: string };
  game_deleted: { userId: number; gameId: number; ip: string };
  consent_given: { userId: number; clientId: string; scopes: Scope[]; flow: 'traditional' | 'game' | 'device' };
  /** A person denied a device's sign-in on /device (RFC 8628). */
  device_authorization_denied: { userId: number; clientId: string };
  code_replay_detected: { userId: number; clientId: string; revokedTokens: number };
  /** A spent refresh token was used again: its family (every refresh and access token of that sign-in) is revoked. */
  refresh_token_reuse_detected: { userId: number; clientId: string; revokedTokens: number };
  token_revoked: { userId: number; clientId: string; by: 'client' };
  grant_revoked: { userId: number; clientId: string };
  account_deleted: { userId: number; name: string; by: 'user' | 'operator' };
  email_verified: { userId: number };
  /**
   * An address never proven was proven by a password reset, and the ways in the account had (made
   * by someone who could not prove the address) were removed (docs/account.md#proving-the-address).
   */
  address_proven: { userId: number; by: 'reset'; passkeys: number; upstreamIdentities: number; authenticatorApp: boolean; endedSessions: number };
  /** `userId` is null when the name or address is no account's (the line is written either way). */
  password_reset_requested: { userId: number | null; ip: string };
  password_reset: { userId: number; endedSessions: number };
  email_change_requested: { userId: number; newEmail: string };
  email_changed: { userId: number; oldEmail: string | undefined; newEmail: string };
  /**
   * A moderator (`moderatorId`; null for the operator CLI) acted on user `userId`
   * (docs/moderation.md); `gameId` for a game of theirs removed. Ids only: the reason is in the
   * record (table moderation_actions).
   */
  moderation_action: { moderatorId: number | null; userId: number; action: ModerationActionKind; reportId?: number; gameId?: number };
}

export type AuditEvent = keyof AuditEvents;

/** The fields of any one event. */
export type AuditFields = AuditEvents[AuditEvent];

export type Audit = <Event extends AuditEvent>(event: Event, fields: AuditEvents[Event]) => void;

/**
 * What else happens on an audit event, after its line is written: the metrics count every event,
 * and the security notices (src/accounts/notices.ts) mail the account's owner of a change to how
 * it signs in. So the trail imports none of them: each listener is handed to createAudit where
 * the app (src/app.ts) or the CLI (src/cli/context.ts) is composed. A listener runs synchronously, in the order given, so one with slow work (a mail)
 * starts it in the background; one that throws is logged and skipped, and never fails the change
 * the event records nor the listeners after it.
 */
export type AuditListener = <Event extends AuditEvent>(event: Event, fields: AuditEvents[Event]) => void;

/**
 * Audit lines are `info` lines with `audit: true`, written even when LOG_LEVEL is warn or error
 * (those quiet the request log, not security events); only LOG_LEVEL=silent turns them off.
 * Then each listener hears the event.
 */
export function createAudit(logger: Logger, listeners: readonly AuditListener[] = []): Audit {
  const log = logger.child({ audit: true }, { level: logger.level === 'silent' ? 'silent' : 'info' });
  const write = (event: AuditEvent, fields: AuditFields) => log.info({ ...fields, event }, event);
  if (listeners.length === 0) return write;
  const heard = [...listeners];
  return (event, fields) => {
    write(event, fields);
    for (const listener of heard) {
      try {
        listener(event, fields);
      } catch (err) {
        logger.error({ err, event }, 'an audit listener failed');
      }
    }
  };
}
