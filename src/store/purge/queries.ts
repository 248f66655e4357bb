import type { PurgeBatch, PurgeCounts } from './store.js';
import { Queries } from '../queries.js';

/** PurgeStore (store.ts) in knex: store.purge in KnexStore (src/store/knex-store.ts), on both databases. */
export class PurgeQueries extends Queries {
  async purgeExpired(batch: PurgeBatch): Promise<PurgeCounts> {
    return {
      tokens: await this.deleteExpiredBatch('access_tokens', 'token_hash', batch.tokensExpiredBy, batch.limit),
      refreshTokens: await this.deleteExpiredBatch('refresh_tokens', 'token_hash', batch.tokensExpiredBy, batch.limit),
      deviceAuthorizations: await this.deleteExpiredBatch('device_authorizations', 'device_code_hash', batch.tokensExpiredBy, batch.limit),
      codes: await this.deleteExpiredBatch('auth_codes', 'code_hash', batch.codesExpiredBy, batch.limit),
      sessions: await this.deleteExpiredBatch('sessions', 'id_hash', batch.sessionsExpiredBy, batch.limit),
    };
  }

  /**
   * One bounded delete through the expires_at index, so a backlog of millions never becomes one
   * long statement holding the writer. On PostgreSQL, SKIP LOCKED lets two instances purging at
   * once take different rows instead of queueing on each other's.
   */
  private async deleteExpiredBatch(table: string, key: string, expiredBy: number, limit: number): Promise<number> {
    if (this.dialect === 'postgres') {
      const victims = this.knex(table).select(key).where('expires_at', '<=', expiredBy).limit(limit).forUpdate().skipLocked();
      return this.knex(table).whereIn(key, victims).delete();
    }
    // SQLite: by rowid, half the time of going through the text primary key
    // (docs/performance.md#the-purge), and better-sqlite3 blocks the event loop for all of it.
    const victims = this.knex(table).select('rowid').where('expires_at', '<=', expiredBy).limit(limit);
    return this.knex(table).whereIn('rowid', victims).delete();
  }
}
