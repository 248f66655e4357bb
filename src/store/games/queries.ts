import type { GamePatch, GameRecord, GameWithAuthor, NewGame } from '../../domain/games.js';
import { gamePatchRow, toGame } from './rows.js';
import { Queries } from '../queries.js';
import { type Row, isRowId, num } from '../rows.js';

/** GameStore (store.ts) in knex: store.games in KnexStore (src/store/knex-store.ts), on both databases. */
export class GamesQueries extends Queries {
  async createGame(game: NewGame): Promise<GameRecord> {
    const [row] = await this.knex('games')
      .insert({ author_id: game.authorId, title: game.title, url: game.url, created_at: game.createdAt })
      .returning<Row[]>('id');
    return { id: num(row?.id), ...game };
  }

  private gamesQuery() {
    return this.knex('games as g').join('users as u', 'u.id', 'g.author_id').select('g.*', 'u.name as author_name');
  }

  async getGame(id: number): Promise<GameWithAuthor | undefined> {
    if (!isRowId(id)) return undefined;
    const row = (await this.gamesQuery().where('g.id', id).first()) as Row | undefined;
    return row && toGame(row);
  }

  async listGames(): Promise<GameWithAuthor[]> {
    const rows = (await this.gamesQuery().orderBy('g.id', 'desc')) as Row[];
    return rows.map(toGame);
  }

  async listGamesByAuthor(authorId: number): Promise<GameWithAuthor[]> {
    if (!isRowId(authorId)) return [];
    const rows = (await this.gamesQuery().where('g.author_id', authorId).orderBy('g.id')) as Row[];
    return rows.map(toGame);
  }

  async updateGame(id: number, patch: GamePatch): Promise<boolean> {
    if (!isRowId(id)) return false;
    const row = gamePatchRow(patch);
    if (Object.keys(row).length === 0) return (await this.knex('games').where({ id }).first('id')) !== undefined;
    return (await this.knex('games').where({ id }).update(row)) === 1;
  }

  async deleteGame(id: number): Promise<boolean> {
    if (!isRowId(id)) return false;
    return (await this.knex('games').where({ id }).delete()) === 1;
  }
}
