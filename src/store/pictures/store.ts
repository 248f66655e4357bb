/**
 * Profile pictures stored in the database (PostgreSQL: docs/decisions.md#pictures-in-postgresql),
 * one row per user, pfpTimestamp and size. A SQLite database keeps pictures in PICTURES_DIR and
 * never calls these.
 */
export interface PictureRowStore {
  /** Inserts all sizes of (userId, ts) in one statement; false (nothing written) when any exists. */
  insertPictures(userId: number, ts: number, images: Record<string, Buffer>, now: number): Promise<boolean>;
  getPicture(userId: number, ts: number, size: string): Promise<Buffer | undefined>;
  deletePictures(userId: number, ts: number): Promise<void>;
  /** Deletes rows written before `before` that no user's current pfpTimestamp points at; returns how many. */
  sweepPictures(before: number): Promise<number>;
  /** Users whose current pfpTimestamp has no rows (pictures still in a PICTURES_DIR, or lost). */
  usersWithoutPictureRows(): Promise<{ id: number; pfpTimestamp: number }[]>;
}
