import type { Ends } from '../../domain/security-events.js';
import type { Knex } from 'knex';
import { UniqueViolation } from '../../domain/errors.js';
import type { NewUpstreamIdentity, UpstreamIdentityRecord } from '../../domain/upstreams.js';
import { Queries } from '../queries.js';
import { isRowId, isRowKey, type Row, uniqueField } from '../rows.js';
import { removeWayIn } from '../users/ways-in.js';
import type { UnlinkOutcome } from './store.js';
import { toUpstreamIdentity, UPSTREAM_IDENTITY_COLUMNS } from './rows.js';

/** The links with their upstream's shown name. */
function identities(knex: Knex) {
  return knex('upstream_identities').join('upstream_providers', 'upstream_providers.slug', 'upstream_identities.upstream_slug').select(...UPSTREAM_IDENTITY_COLUMNS);
}

/**
 * UpstreamIdentityStore (store.ts) in knex: store.upstreamIdentities in KnexStore (src/store/knex-store.ts), on both
 * databases, with no dialect store overriding it (a sign-in through an upstream reads one row).
 */
export class UpstreamIdentitiesQueries extends Queries {
  async findUpstreamIdentity(upstreamSlug: string, subject: string): Promise<UpstreamIdentityRecord | undefined> {
    if (!isRowKey(upstreamSlug) || !isRowKey(subject)) return undefined;
    const row = (await identities(this.knex).where({ 'upstream_identities.upstream_slug': upstreamSlug, 'upstream_identities.subject': subject }).first()) as Row | undefined;
    return row && toUpstreamIdentity(row);
  }

  async linkUpstreamIdentity(identity: NewUpstreamIdentity): Promise<UpstreamIdentityRecord> {
    let id: number;
    try {
      const [row] = await this.knex('upstream_identities')
        .insert({
          user_id: identity.userId,
          upstream_slug: identity.upstreamSlug,
          subject: identity.subject,
          email: identity.email,
          created_at: identity.createdAt,
          last_used_at: null,
        })
        .returning<Row[]>('id');
      id = Number(row!['id']);
    } catch (err) {
      // (upstream_slug, subject) is the table's only unique constraint.
      if (uniqueField(err) !== undefined) throw new UniqueViolation('upstreamIdentity');
      throw err;
    }
    const row = (await identities(this.knex).where('upstream_identities.id', id).first()) as Row;
    return toUpstreamIdentity(row);
  }

  async listUpstreamIdentities(userId: number): Promise<UpstreamIdentityRecord[]> {
    if (!isRowId(userId)) return [];
    const rows = (await identities(this.knex)
      .where('upstream_identities.user_id', userId)
      .orderBy([{ column: 'upstream_identities.created_at' }, { column: 'upstream_identities.id' }])) as Row[];
    return rows.map(toUpstreamIdentity);
  }

  async touchUpstreamIdentity(id: number, at: number): Promise<void> {
    if (!isRowId(id)) return;
    await this.knex('upstream_identities').where({ id }).update({ last_used_at: at });
  }

  /**
   * One transaction that locks the user's row first: on PostgreSQL a concurrent unlink (of
   * another link of the same account) waits for this one to end, then counts what is left; SQLite
   * leaves `for update` out, and its one connection runs the transactions one at a time.
   */
  async unlinkUpstreamIdentity(userId: number, id: number, ends: Ends, now: number, keepSessionIdHash?: string): Promise<UnlinkOutcome> {
    if (!isRowId(userId) || !isRowId(id)) return 'missing';
    const outcome = await removeWayIn(this.knex, 'upstream_identities', { userId, ...(keepSessionIdHash === undefined ? {} : { keepSessionIdHash }) }, id, ends, now);
    return outcome === 'removed' ? 'unlinked' : outcome;
  }
}
