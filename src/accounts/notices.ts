/**
 * Notices to the owner of an account when how it signs in changes (docs/account.md#notices): a
 * listener of the audit trail (src/audit.ts), subscribed where the app (src/http/app.ts) and the
 * operator CLI (src/cli/context.ts) are composed, so no change sends its own. The audit event is
 * written once the change is committed; the short mail then goes in the background, so a mail
 * server that is down never fails or slows the change (the failure is logged by the mailer). Only
 * to a verified address: an unverified one may not be the owner's.
 */
import type { AuditEvents, AuditListener } from '../audit.js';
import type { Config } from '../config.js';
import type { Mailer } from '../mail/mailer.js';
import { securityNoticeMessage, type SecurityChange } from '../mail/messages.js';
import type { Store } from '../store/types.js';

interface NoticeDeps {
  store: Pick<Store, 'getUser'>;
  mailer: Pick<Mailer, 'background' | 'send'>;
  config: Pick<Config, 'publicUrl'>;
  /** Hears each notice the mailer took (the CLI answers whether the person was told). */
  told?: (userId: number, change: SecurityChange) => void;
}

/** Whom a notice goes to, and of what. */
interface Notice {
  userId: number;
  change: SecurityChange;
}

/** The audit events that mail a notice, and which; every other event mails none. */
const NOTICES: { [Event in keyof AuditEvents]?: (fields: AuditEvents[Event]) => Notice } = {
  password_changed: ({ userId }) => ({ userId, change: 'password_changed' }),
  password_reset: ({ userId }) => ({ userId, change: 'password_changed' }),
  passkey_added: ({ userId }) => ({ userId, change: 'passkey_added' }),
  passkey_removed: ({ userId }) => ({ userId, change: 'passkey_removed' }),
  second_factor_changed: ({ userId, change }) => ({ userId, change }),
  recovery_code_used: ({ userId }) => ({ userId, change: 'recovery_code_used' }),
  factors_reset: ({ userId }) => ({ userId, change: 'factors_reset' }),
};

/** The listener that mails the notices: hand it to createAudit. */
export function securityNotices(deps: NoticeDeps): AuditListener {
  return (event, fields) => {
    const notice = NOTICES[event]?.(fields);
    if (notice) send(deps, notice);
  };
}

function send(deps: NoticeDeps, { userId, change }: Notice): void {
  deps.mailer.background(async () => {
    const user = await deps.store.getUser(userId);
    if (!user || user.emailVerifiedAt === null) return;
    await deps.mailer.send(securityNoticeMessage(deps.config.publicUrl, user.email, user.name, change));
    deps.told?.(userId, change);
  });
}
