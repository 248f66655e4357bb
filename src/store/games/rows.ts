/** Rows of the games tables as records (src/domain/games.ts), and records as rows. */
import type { GamePatch, GameWithAuthor } from '../../domain/games.js';
import { type Row, num } from '../rows.js';

/** A games row joined with its author's name (`author_name`). */
export function toGame(r: Row): GameWithAuthor {
  return {
    id: num(r.id),
    authorId: num(r.author_id),
    title: String(r.title),
    url: String(r.url),
    createdAt: num(r.created_at),
    authorName: String(r.author_name),
  };
}

/** The columns a patch changes (none for an empty one). */
export function gamePatchRow(patch: GamePatch): Row {
  const row: Row = {};
  if (patch.title !== undefined) row.title = patch.title;
  if (patch.url !== undefined) row.url = patch.url;
  return row;
}
