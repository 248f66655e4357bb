import type { Ends } from '../../domain/security-events.js';
import type { GrantRecord, GrantWithApp } from '../../domain/grants.js';
import { toGrant, toGrantWithApp } from './rows.js';
import { Queries } from '../queries.js';
import { endArtifacts } from '../security-events/ends.js';
import { type Row, isRowId, isRowKey } from '../rows.js';

/** GrantStore (store.ts) in knex: store.grants in KnexStore (src/store/knex-store.ts), on both databases. */
export class GrantsQueries extends Queries {
  async getGrant(userId: number, clientId: string): Promise<GrantRecord | undefined> {
    if (!isRowId(userId) || !isRowKey(clientId)) return undefined;
    const row = (await this.knex('grants').where({ user_id: userId, client_id: clientId }).first()) as Row | undefined;
    return row && toGrant(row);
  }

  async saveGrant(grant: Pick<GrantRecord, 'userId' | 'clientId' | 'scopes'>, now: number): Promise<void> {
    await this.knex('grants')
      .insert({ user_id: grant.userId, client_id: grant.clientId, scopes: grant.scopes.join(' '), created_at: now, last_used_at: now })
      .onConflict(['user_id', 'client_id'])
      .merge(['scopes', 'last_used_at']);
  }

  async touchGrant(userId: number, clientId: string, now: number): Promise<void> {
    if (!isRowId(userId) || !isRowKey(clientId)) return;
    await this.knex('grants').where({ user_id: userId, client_id: clientId }).update({ last_used_at: now });
  }

  async listGrants(userId: number): Promise<GrantWithApp[]> {
    if (!isRowId(userId)) return [];
    const rows = await this.knex('grants as g')
      .join('apps as a', 'a.client_id', 'g.client_id')
      .join('users as o', 'o.id', 'a.owner_id')
      .where('g.user_id', userId)
      .orderBy([{ column: 'g.created_at' }, { column: 'g.client_id' }])
      .select<Row[]>('g.*', 'a.name as app_name', 'a.owner_id', 'o.name as owner_name');
    return rows.map(toGrantWithApp);
  }

  async revokeGrant(userId: number, clientId: string, now: number, ends: Ends): Promise<boolean> {
    if (!isRowId(userId) || !isRowKey(clientId)) return false;
    return this.knex.transaction(async (trx) => {
      const deleted = await trx('grants').where({ user_id: userId, client_id: clientId }).delete();
      if (deleted !== 1) return false;
      await endArtifacts(trx, { userId, clientId }, ends, now);
      return true;
    });
  }
}
