import type { Ended, Ends, EventSubject } from '../../domain/security-events.js';
import { Queries } from '../queries.js';
import { isRowId, type Row } from '../rows.js';
import { endArtifacts } from './ends.js';

/** SecurityEventStore (store.ts) in knex: store.securityEvents in KnexStore (src/store/knex-store.ts), on both databases. */
export class SecurityEventsQueries extends Queries {
  async recordSecurityEvent(subject: EventSubject, ends: Ends, now: number, change: { passwordHash?: string } = {}): Promise<Ended | undefined> {
    if (!isRowId(subject.userId)) return undefined;
    return this.knex.transaction(async (trx) => {
      const user = trx('users').where({ id: subject.userId });
      const found =
        change.passwordHash === undefined
          ? (await user.first<Row | undefined>('id')) !== undefined
          : (await user.update({ password_hash: change.passwordHash })) === 1;
      if (!found) return undefined;
      return endArtifacts(trx, subject, ends, now);
    });
  }
}
