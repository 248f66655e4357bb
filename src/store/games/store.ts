import type { GamePatch, GameRecord, GameWithAuthor, NewGame } from '../../domain/games.js';

/** The games users registered. */
export interface GameStore {
  createGame(game: NewGame): Promise<GameRecord>;
  getGame(id: number): Promise<GameWithAuthor | undefined>;
  /** Every game, newest first. */
  listGames(): Promise<GameWithAuthor[]>;
  /** The games a user registered, oldest first. */
  listGamesByAuthor(authorId: number): Promise<GameWithAuthor[]>;
  /** Changes the fields the patch names; false when there is no such game. */
  updateGame(id: number, patch: GamePatch): Promise<boolean>;
  /** Deletes the game; false when there is none. */
  deleteGame(id: number): Promise<boolean>;
}
