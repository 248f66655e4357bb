import { UniqueViolation } from '../../domain/errors.js';
import { NO_PASSWORD, type NewUser, type PublicUserRecord, type UserPatch, type UserRecord } from '../../domain/users.js';
import { Queries } from '../queries.js';
import { type Row, isRowId, isRowKey, num, uniqueField } from '../rows.js';
import { toUser } from './rows.js';

/** UserStore (store.ts) in knex: store.users in KnexStore (src/store/knex-store.ts), on both databases. */
export abstract class UsersQueries extends Queries {
  async countUsers(): Promise<number> {
    const row = (await this.knex('users').count({ n: '*' }).first()) as Row | undefined;
    return num(row?.n ?? 0);
  }

  async createUser(user: NewUser, now: number): Promise<UserRecord> {
    const nameKey = user.name.toLowerCase();
    try {
      return await this.knex.transaction(async (trx) => {
        if (await trx('retired_names').where({ name_key: nameKey }).first()) throw new UniqueViolation('name');
        const [row] = await trx('users')
          .insert({
            name: user.name,
            name_key: nameKey,
            email: user.email,
            password_hash: user.passwordHash,
            email_verified_at: user.emailVerifiedAt ?? null,
            profile_updated_at: now,
            created_at: now,
          })
          .returning<Row[]>('*');
        const identity = user.upstreamIdentity;
        if (identity) {
          try {
            await trx('upstream_identities').insert({
              user_id: row!['id'],
              upstream_slug: identity.upstreamSlug,
              subject: identity.subject,
              email: identity.email,
              created_at: now,
              last_used_at: now,
            });
          } catch (err) {
            if (uniqueField(err) !== undefined) throw new UniqueViolation('upstreamIdentity');
            throw err;
          }
        }
        return toUser(row!);
      });
    } catch (err) {
      if (err instanceof UniqueViolation) throw err;
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }

  /** A hot path: each database's own (sqlite.ts, postgres.ts) reads it with a prepared statement. */
  abstract getUser(id: number): Promise<UserRecord | undefined>;

  /** A hot path: each database's own (sqlite.ts, postgres.ts) reads it with a prepared statement. */
  abstract getPublicUser(id: number): Promise<PublicUserRecord | undefined>;

  /** A hot path: each database's own (sqlite.ts, postgres.ts) reads it with a prepared statement. */
  abstract getPfpTimestamp(id: number): Promise<number | null | undefined>;

  async getUserByName(name: string): Promise<UserRecord | undefined> {
    if (!isRowKey(name)) return undefined;
    const row = (await this.knex('users').where({ name_key: name.toLowerCase() }).first()) as Row | undefined;
    return row && toUser(row);
  }

  async getUserByEmail(email: string): Promise<UserRecord | undefined> {
    if (!isRowKey(email)) return undefined;
    const row = (await this.knex('users').where({ email: email.toLowerCase() }).first()) as Row | undefined;
    return row && toUser(row);
  }

  async recordHeartbeat(id: number, expected: number, now: number, addMinutes: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const changed = await this.knex('users')
      .where({ id, last_heartbeat: expected })
      .update({ last_heartbeat: now, play_minutes: this.knex.raw('play_minutes + ?', [addMinutes]) });
    return changed === 1 ? this.getUser(id) : undefined;
  }

  async updateUser(id: number, patch: UserPatch): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row: Row = {};
    if (patch.bio !== undefined) {
      row.bio = patch.bio;
      // A bio written after a moderator removed one ends the notice of the removal.
      row.bio_removed_reason = null;
      row.bio_removed_at = null;
    }
    if (patch.flairs !== undefined) row.flairs = JSON.stringify(patch.flairs);
    if (patch.equippedFlair !== undefined) row.equipped_flair = patch.equippedFlair;
    if (patch.playMinutes !== undefined) row.play_minutes = patch.playMinutes;
    if (patch.lastHeartbeat !== undefined) row.last_heartbeat = patch.lastHeartbeat;
    if (patch.modLevel !== undefined) row.mod_level = patch.modLevel;
    if (Object.keys(row).length > 0) await this.knex('users').where({ id }).update(row);
    return this.getUser(id);
  }

  async setFirstPassword(id: number, passwordHash: string): Promise<boolean> {
    if (!isRowId(id)) return false;
    return (await this.knex('users').where({ id, password_hash: NO_PASSWORD }).update({ password_hash: passwordHash })) === 1;
  }

  async swapPfpTimestamp(id: number, expected: number | null, next: number | null, at?: number): Promise<boolean> {
    if (!isRowId(id)) return false;
    const query = this.knex('users').where({ id });
    if (expected === null) query.whereNull('pfp_timestamp');
    else query.where({ pfp_timestamp: expected });
    // Callers pick `next` above the high-water mark, so it becomes the new mark.
    const row: Row = next === null ? { pfp_timestamp: null } : { pfp_timestamp: next, pfp_high_water: next };
    const updatedAt = at ?? next;
    if (updatedAt !== null) row.profile_updated_at = updatedAt;
    return (await query.update(row)) === 1;
  }

  async deleteUser(id: number, now: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    return this.knex.transaction(async (trx) => {
      const row = (await trx('users').where({ id }).first()) as Row | undefined;
      if (!row) return undefined;
      const owned = trx('apps').select('client_id').where({ owner_id: id });
      // Explicit rather than left to ON DELETE CASCADE alone: the order is the one a crash
      // mid-way would leave least behind, and it does not depend on SQLite's foreign_keys pragma.
      await trx('device_authorizations').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('refresh_tokens').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('access_tokens').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('auth_codes').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('grants').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('sessions').where({ user_id: id }).delete();
      await trx('email_links').where({ user_id: id }).delete();
      await trx('passkeys').where({ user_id: id }).delete();
      await trx('upstream_identities').where({ user_id: id }).delete();
      await trx('recovery_codes').where({ user_id: id }).delete();
      await trx('totp_factors').where({ user_id: id }).delete();
      await trx('reports').where({ reporter_id: id }).orWhere({ target_id: id }).delete();
      await trx('games').where({ author_id: id }).delete();
      await trx('apps').where({ owner_id: id }).delete();
      await trx('retired_names').insert({ name_key: String(row.name_key), retired_at: now }).onConflict('name_key').ignore();
      await trx('users').where({ id }).delete();
      return toUser(row);
    });
  }
}
