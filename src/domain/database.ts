/**
 * Which database DATABASE_URL names. Parsed once, by config.ts (Config.database); the store
 * (src/store/connection.ts) turns the result into knex's and pg's settings, and everything else
 * asks its dialect. It lives here, not in the store, so that the configuration every module reads
 * depends on no layer.
 */

/**
 * A parsed DATABASE_URL. `file` is a SQLite file path, or SQLite's own `:memory:` for a database
 * that lives only as long as its one connection.
 */
export type DatabaseLocation = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string; poolSize?: number };

export type Dialect = DatabaseLocation['dialect'];

/**
 * The most connections each of an instance's two PostgreSQL pools opens (DATABASE_POOL_SIZE):
 * knex's, and the hot paths' prepared statements' (docs/performance.md#pool-size).
 */
export const DEFAULT_POOL_SIZE = 10;

/** `postgres://` or `postgresql://` is PostgreSQL; anything else names a SQLite file (a path, `file:<path>`, `sqlite:<path>` or `:memory:`). */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
  return { dialect: 'sqlite', file: url.replace(/^file:(\/\/)?/, '').replace(/^sqlite:(\/\/)?/, '') };
}
