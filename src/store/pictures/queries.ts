import { Queries } from '../queries.js';
import { type Row, isRowId, num } from '../rows.js';

/** PictureRowStore (store.ts) in knex: store.pictures in KnexStore (src/store/knex-store.ts), on both databases. */
export class PicturesQueries extends Queries {
  async insertPictures(userId: number, ts: number, images: Record<string, Buffer>, now: number): Promise<boolean> {
    const rows = Object.entries(images).map(([size, bytes]) => ({ user_id: userId, ts, size, bytes, created_at: now }));
    try {
      // One statement: all sizes land together, or none do.
      await this.knex('pictures').insert(rows);
      return true;
    } catch (err) {
      // The primary key (user, timestamp, size) is taken: another writer has this timestamp.
      const code = (err as { code?: string }).code;
      if (code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
      throw err;
    }
  }

  async getPicture(userId: number, ts: number, size: string): Promise<Buffer | undefined> {
    if (!isRowId(userId)) return undefined;
    const row = (await this.knex('pictures').select('bytes').where({ user_id: userId, ts, size }).first()) as Row | undefined;
    return row ? (row.bytes as Buffer) : undefined;
  }

  async deletePictures(userId: number, ts: number): Promise<void> {
    await this.knex('pictures').where({ user_id: userId, ts }).delete();
  }

  async sweepPictures(before: number): Promise<number> {
    return this.knex('pictures')
      .where('created_at', '<', before)
      .whereNotExists(this.knex('users').select(this.knex.raw('1')).whereRaw('users.id = pictures.user_id and users.pfp_timestamp = pictures.ts'))
      .delete();
  }

  async usersWithoutPictureRows(): Promise<{ id: number; pfpTimestamp: number }[]> {
    const rows = (await this.knex('users')
      .select('id', 'pfp_timestamp')
      .whereNotNull('pfp_timestamp')
      .whereNotExists(this.knex('pictures').select(this.knex.raw('1')).whereRaw('pictures.user_id = users.id and pictures.ts = users.pfp_timestamp'))
      .orderBy('id')) as Row[];
    return rows.map((r) => ({ id: num(r.id), pfpTimestamp: num(r.pfp_timestamp) }));
  }
}
