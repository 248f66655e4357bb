import { UniqueViolation } from '../../domain/errors.js';
import type { UpstreamRecord } from '../../domain/upstreams.js';
import { Queries } from '../queries.js';
import { isRowKey, type Row, uniqueField } from '../rows.js';
import { toUpstream, upstreamRow } from './rows.js';

/**
 * UpstreamStore (store.ts) in knex: store.upstreams in KnexStore (src/store/knex-store.ts), on both
 * databases, with no dialect store overriding it (the operator changes these rarely; a sign-in
 * reads one row).
 */
export class UpstreamsQueries extends Queries {
  async addUpstream(record: UpstreamRecord): Promise<void> {
    try {
      await this.knex('upstream_providers').insert(upstreamRow(record));
    } catch (err) {
      // The slug is the primary key, the table's only unique column: PostgreSQL reports it as any
      // unique violation (uniqueField reads that), SQLite with a code of its own.
      if (uniqueField(err) !== undefined || (err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new UniqueViolation('slug');
      throw err;
    }
  }

  async listUpstreams(): Promise<UpstreamRecord[]> {
    const rows = await this.knex<Row>('upstream_providers').orderBy([{ column: 'created_at' }, { column: 'slug' }]);
    return rows.map(toUpstream);
  }

  async getUpstream(slug: string): Promise<UpstreamRecord | undefined> {
    if (!isRowKey(slug)) return undefined;
    const row = (await this.knex('upstream_providers').where({ slug }).first()) as Row | undefined;
    return row && toUpstream(row);
  }

  async setUpstreamEnabled(slug: string, enabled: boolean): Promise<boolean> {
    if (!isRowKey(slug)) return false;
    return (await this.knex('upstream_providers').where({ slug }).update({ enabled })) === 1;
  }

  async setUpstreamTrustMfa(slug: string, trustMfa: boolean): Promise<boolean> {
    if (!isRowKey(slug)) return false;
    return (await this.knex('upstream_providers').where({ slug }).update({ trust_mfa: trustMfa })) === 1;
  }

  async removeUpstream(slug: string): Promise<boolean> {
    if (!isRowKey(slug)) return false;
    return (await this.knex('upstream_providers').where({ slug }).delete()) === 1;
  }
}
