/**
 * Notices to the owner of an account when how it signs in changes (docs/account.md#notices), and
 * when it is suspended or the suspension lifted (docs/moderation.md#suspension): a
 * listener of the audit trail (src/audit.ts), subscribed where the app (src/app.ts) and the
 * operator CLI (src/cli/context.ts) are composed, so no change sends its own. The audit event is
 * written once the change is committed; the short mail then goes in the background, so a mail
 * server that is down never fails or slows the change (the failure is logged by the mailer). Only
 * to a verified address: an unverified one may not be the owner's.
 */
import type { AuditEvents, AuditListener } from '../audit.js';
import type { Config } from '../config.js';
import type { Mailer } from '../mail/mailer.js';
import { refreshTokenReuseMessage, securityNoticeMessage, suspensionNoticeMessage, waysInRemovedMessage, type RemovedWaysIn, type SecurityChange } from '../mail/messages.js';
import type { Store } from '../store/types.js';

interface NoticeDeps {
  store: { users: Pick<Store['users'], 'getUser'>; apps: Pick<Store['apps'], 'getApp'> };
  mailer: Pick<Mailer, 'background' | 'send'>;
  config: Pick<Config, 'publicUrl'>;
  /** Hears each notice the mailer took (the CLI answers whether the person was told). */
  told?: (userId: number, change: SecurityChange) => void;
}

/** A change of whether the account may be used at all: a moderator's (or the operator's) suspension, and its lifting. */
type StandingChange = 'suspended' | 'suspension_lifted';

/** An app's sign-in ended because a spent refresh token of it came back: `clientId` names the app. */
type AppSignInEnded = 'refresh_token_reused';

/** Ways in made before the address was proven, removed when it was (docs/account.md#proving-the-address). */
type WaysInRemoved = 'ways_in_removed';

/** Whom a notice goes to, and of what. */
interface Notice {
  userId: number;
  change: SecurityChange | StandingChange | AppSignInEnded | WaysInRemoved;
  clientId?: string;
  removed?: RemovedWaysIn;
}

/** The audit events that mail a notice, and which; every other event mails none. */
const NOTICES: { [Event in keyof AuditEvents]?: (fields: AuditEvents[Event]) => Notice | undefined } = {
  password_changed: ({ userId }) => ({ userId, change: 'password_changed' }),
  password_reset: ({ userId }) => ({ userId, change: 'password_changed' }),
  password_set: ({ userId }) => ({ userId, change: 'password_set' }),
  passkey_added: ({ userId }) => ({ userId, change: 'passkey_added' }),
  passkey_removed: ({ userId }) => ({ userId, change: 'passkey_removed' }),
  second_factor_changed: ({ userId, change }) => ({ userId, change }),
  recovery_code_used: ({ userId }) => ({ userId, change: 'recovery_code_used' }),
  factors_reset: ({ userId }) => ({ userId, change: 'factors_reset' }),
  upstream_identity_linked: ({ userId }) => ({ userId, change: 'upstream_linked' }),
  upstream_identity_unlinked: ({ userId }) => ({ userId, change: 'upstream_unlinked' }),
  refresh_token_reuse_detected: ({ userId, clientId }) => ({ userId, change: 'refresh_token_reused', clientId }),
  address_proven: ({ userId, passkeys, upstreamIdentities, authenticatorApp }) =>
    passkeys + upstreamIdentities > 0 || authenticatorApp ? { userId, change: 'ways_in_removed', removed: { passkeys, upstreamIdentities, authenticatorApp } } : undefined,
  moderation_action: ({ userId, action }) =>
    action === 'suspend' ? { userId, change: 'suspended' } : action === 'lift_suspension' ? { userId, change: 'suspension_lifted' } : undefined,
};

/** The listener that mails the notices: hand it to createAudit. */
export function securityNotices(deps: NoticeDeps): AuditListener {
  return (event, fields) => {
    const notice = NOTICES[event]?.(fields);
    if (notice) send(deps, notice);
  };
}

function send(deps: NoticeDeps, { userId, change, clientId, removed }: Notice): void {
  deps.mailer.background(async () => {
    const user = await deps.store.users.getUser(userId);
    if (!user || user.emailVerifiedAt === null) return;
    if (change === 'refresh_token_reused') {
      const app = clientId === undefined ? undefined : await deps.store.apps.getApp(clientId);
      if (app) await deps.mailer.send(refreshTokenReuseMessage(deps.config.publicUrl, user.email, user.name, app.name));
      return;
    }
    if (change === 'ways_in_removed') {
      if (removed) await deps.mailer.send(waysInRemovedMessage(deps.config.publicUrl, user.email, user.name, removed));
      return;
    }
    if (change === 'suspended' || change === 'suspension_lifted') {
      // As the account is now: a suspension lifted before this mail went says nothing any more.
      if ((change === 'suspended') !== (user.suspension !== null)) return;
      await deps.mailer.send(suspensionNoticeMessage(deps.config.publicUrl, user.email, user.name, user.suspension));
      return;
    }
    await deps.mailer.send(securityNoticeMessage(deps.config.publicUrl, user.email, user.name, change));
    deps.told?.(userId, change);
  });
}
