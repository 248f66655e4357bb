import type { Knex } from 'knex';
import { NO_PASSWORD } from '../../domain/users.js';
import type { Row } from '../rows.js';
import type { Ends, EventSubject } from '../../domain/security-events.js';
import { endArtifacts } from '../security-events/ends.js';

/** The tables of the ways into an account besides its password. */
type WayIn = 'passkeys' | 'upstream_identities';

/**
 * Deletes the user's row `id` of `table` (a passkey, a linked upstream identity) unless it is the
 * account's last way in: no password and nothing else in either table. 'missing' when the user
 * has no such row. The user's row is locked first, so two removals racing (two unlinks, a passkey
 * and a link) cannot both take the last two ways in. A removal ends `ends` (the security event's
 * row) in the same transaction.
 */
export function removeWayIn(knex: Knex, table: WayIn, subject: EventSubject, id: number, ends: Ends, now: number): Promise<'removed' | 'last' | 'missing'> {
  const { userId } = subject;
  return knex.transaction(async (trx) => {
    const user = (await trx('users').select('password_hash').where({ id: userId }).forUpdate().first()) as Row | undefined;
    if (!user) return 'missing';
    if (!(await trx(table).select('id').where({ id, user_id: userId }).first())) return 'missing';
    if (user.password_hash === NO_PASSWORD) {
      const other = table === 'passkeys' ? 'upstream_identities' : 'passkeys';
      const another =
        ((await trx(table).select('id').where({ user_id: userId }).whereNot({ id }).first()) as Row | undefined) ??
        ((await trx(other).select('id').where({ user_id: userId }).first()) as Row | undefined);
      if (!another) return 'last';
    }
    await trx(table).where({ id, user_id: userId }).delete();
    await endArtifacts(trx, subject, ends, now);
    return 'removed';
  });
}
