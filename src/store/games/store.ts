import type { GameRecord, GameWithAuthor, NewGame } from '../../domain/games.js';

/** The games users registered. */
export interface GameStore {
  createGame(game: NewGame): Promise<GameRecord>;
  getGame(id: number): Promise<GameWithAuthor | undefined>;
  /** Every game, newest first. */
  listGames(): Promise<GameWithAuthor[]>;
  /** The games a user registered, oldest first. */
  listGamesByAuthor(authorId: number): Promise<GameWithAuthor[]>;
}
