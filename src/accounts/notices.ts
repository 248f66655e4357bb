/**
 * Notices to the owner of an account when how it signs in changes (docs/account.md#notices): a
 * short mail after the change is committed, sent in the background, so a mail server that is down
 * never fails or slows the change (the failure is logged by the mailer). Only to a verified
 * address: an unverified one may not be the owner's.
 */
import type { Config } from '../config.js';
import type { Mailer } from '../mail/mailer.js';
import { securityNoticeMessage, type SecurityChange } from '../mail/messages.js';
import type { Store } from '../store/types.js';

interface NoticeDeps {
  store: Pick<Store, 'getUser'>;
  mailer: Pick<Mailer, 'background' | 'send'>;
  config: Pick<Config, 'publicUrl'>;
}

export function noticeSecurityChange(deps: NoticeDeps, userId: number, change: SecurityChange): void {
  deps.mailer.background(async () => {
    const user = await deps.store.getUser(userId);
    if (!user || user.emailVerifiedAt === null) return;
    await deps.mailer.send(securityNoticeMessage(deps.config.publicUrl, user.email, user.name, change));
  });
}
