import type { Ended, Ends } from '../../domain/security-events.js';
import { endArtifacts } from '../security-events/ends.js';
import type { EmailLinkEffect, EmailLinkPurpose, EmailLinkRecord } from '../../domain/email-links.js';
import { UniqueViolation } from '../../domain/errors.js';
import { toEmailLink } from './rows.js';
import { Queries } from '../queries.js';
import { type Row, isRowKey, num, uniqueField } from '../rows.js';

/** Rolls back a link's transaction when its condition on the user no longer holds. */
class LinkNotApplicable extends Error {}

/** EmailLinkStore (store.ts) in knex: store.emailLinks in KnexStore (src/store/knex-store.ts), on both databases. */
export class EmailLinksQueries extends Queries {
  async createEmailLink(link: EmailLinkRecord): Promise<void> {
    await this.knex('email_links').insert({
      token_hash: link.tokenHash,
      user_id: link.userId,
      purpose: link.purpose,
      email: link.email,
      expires_at: link.expiresAt,
      used_at: link.usedAt,
      created_at: link.createdAt,
    });
  }

  async getEmailLink(tokenHash: string): Promise<EmailLinkRecord | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    const row = (await this.knex('email_links').where({ token_hash: tokenHash }).first()) as Row | undefined;
    return row && toEmailLink(row);
  }

  async deleteEmailLink(tokenHash: string): Promise<void> {
    if (!isRowKey(tokenHash)) return;
    await this.knex('email_links').where({ token_hash: tokenHash }).delete();
  }

  async listEmailLinks(userId: number, purpose: EmailLinkPurpose): Promise<EmailLinkRecord[]> {
    const rows = (await this.knex('email_links').where({ user_id: userId, purpose }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'token_hash' }])) as Row[];
    return rows.map(toEmailLink);
  }

  async redeemEmailLink(tokenHash: string, now: number, effect: EmailLinkEffect, voids: readonly EmailLinkPurpose[], ends: Ends): Promise<Ended | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    try {
      return await this.knex.transaction(async (trx) => {
        const link = (await trx('email_links').where({ token_hash: tokenHash }).first()) as Row | undefined;
        if (!link) return undefined;
        const claimed = await trx('email_links')
          .where({ token_hash: tokenHash })
          .whereNull('used_at')
          .where('expires_at', '>', now)
          .update({ used_at: now });
        if (claimed !== 1) return undefined;
        const userId = num(link.user_id);
        const row: Row = {};
        if (effect.passwordHash !== undefined) row.password_hash = effect.passwordHash;
        if (effect.email !== undefined) row.email = effect.email;
        if (effect.emailVerifiedAt !== undefined) row.email_verified_at = effect.emailVerifiedAt;
        const user = trx('users').where({ id: userId });
        if (effect.whileEmailIs !== undefined) user.where({ email: effect.whileEmailIs });
        if ((await user.update(row)) !== 1) throw new LinkNotApplicable();
        if (voids.length > 0) {
          await trx('email_links').where({ user_id: userId }).whereIn('purpose', voids).whereNull('used_at').update({ used_at: now });
        }
        return endArtifacts(trx, { userId }, ends, now);
      });
    } catch (err) {
      if (err instanceof LinkNotApplicable) return undefined;
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }
}
