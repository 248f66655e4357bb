import type { SessionMeta } from '../../domain/sessions.js';
import { Queries } from '../queries.js';
import { type Row, isRowId, isRowKey } from '../rows.js';
import { toSessionMeta } from './rows.js';

function sessionRow(idHash: string, data: string, expiresAt: number, userId: number | null, meta: SessionMeta | null | undefined): Row {
  const row: Row = { id_hash: idHash, data, expires_at: expiresAt, user_id: userId };
  if (meta) {
    // The meta of a session signed in before its address was recorded has no signInIp.
    Object.assign(row, { public_id: meta.publicId, started_at: meta.startedAt, last_seen_at: meta.lastSeenAt, user_agent: meta.userAgent, sign_in_ip: meta.signInIp ?? null });
  } else {
    Object.assign(row, { public_id: null, started_at: null, last_seen_at: null, user_agent: null, sign_in_ip: null });
  }
  return row;
}

/** SessionStore (store.ts) in knex: store.sessions in KnexStore (src/store/knex-store.ts), on both databases. */
export class SessionsQueries extends Queries {
  async getSession(idHash: string, now: number): Promise<string | undefined> {
    if (!isRowKey(idHash)) return undefined;
    const row = await this.knex('sessions').where({ id_hash: idHash }).where('expires_at', '>', now).first<Row | undefined>('data');
    return row ? String(row.data) : undefined;
  }

  async setSession(idHash: string, data: string, expiresAt: number, userId: number | null, meta?: SessionMeta | null): Promise<void> {
    await this.knex('sessions').insert(sessionRow(idHash, data, expiresAt, userId, meta)).onConflict('id_hash').merge();
  }

  async updateSession(idHash: string, data: string, expiresAt: number, userId: number | null, meta: SessionMeta | null | undefined, whileUserId: number | null): Promise<boolean> {
    if (!isRowKey(idHash)) return false;
    const query = this.knex('sessions').where({ id_hash: idHash });
    if (whileUserId === null) query.whereNull('user_id');
    else query.where({ user_id: whileUserId });
    return (await query.update(sessionRow(idHash, data, expiresAt, userId, meta))) === 1;
  }

  async listUserSessions(userId: number, now: number): Promise<SessionMeta[]> {
    if (!isRowId(userId)) return [];
    const rows = await this.knex('sessions')
      .where({ user_id: userId })
      .where('expires_at', '>', now)
      .whereNotNull('public_id')
      .orderBy([{ column: 'last_seen_at', order: 'desc' }, { column: 'public_id' }])
      .select<Row[]>('public_id', 'started_at', 'last_seen_at', 'user_agent', 'sign_in_ip');
    return rows.map(toSessionMeta);
  }

  async deleteUserSession(userId: number, publicId: string): Promise<boolean> {
    if (!isRowId(userId) || !isRowKey(publicId)) return false;
    return (await this.knex('sessions').where({ user_id: userId, public_id: publicId }).delete()) === 1;
  }

  async deleteSession(idHash: string): Promise<void> {
    if (!isRowKey(idHash)) return;
    await this.knex('sessions').where({ id_hash: idHash }).delete();
  }
}
