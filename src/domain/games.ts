/** Games: the records the domain, the store and the pages share. */
export interface GameRecord {
  id: number;
  authorId: number;
  title: string;
  /** Where the game is hosted: the play page frames this address. */
  url: string;
  createdAt: number;
}

export type NewGame = Omit<GameRecord, 'id'>;

/** What its author (or the operator) may change of a game; a field left out stays. */
export type GamePatch = Partial<Pick<GameRecord, 'title' | 'url'>>;

/** A game with its author's name, as lists and pages show it. */
export interface GameWithAuthor extends GameRecord {
  authorName: string;
}
