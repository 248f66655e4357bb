/**
 * What every aggregate's row mapping (src/store/<aggregate>/rows.ts) shares: the row type, number
 * and scope columns, the input guard every lookup of both stores applies to its keys first, and
 * the unique-constraint reader.
 */
/** A row as either driver returns it: PostgreSQL's bigint columns come back as strings, hence num(). */
export type Row = Record<string, unknown>;

/**
 * The input guard, one rule for every lookup of both stores: each string and each id a method is
 * given to find rows by is checked first, with isRowKey or isRowId, and a value no row can hold
 * answers as "not found" (undefined, false, 0, [] or nothing done) without a query. PostgreSQL
 * would refuse such a query (an error, so a 500) where SQLite answers "no row": its text cannot
 * hold NUL, and its integer columns cannot be compared with a number beyond their range. The rule
 * is for lookups; what inserts and updates store is the domain's to validate.
 */
export const isRowKey = (key: string): boolean => !key.includes('\u0000');

/** Ids are 32-bit integer columns (`increments`), counted from 1 (the rule: isRowKey). */
export const isRowId = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= 2_147_483_647;

export const num = (v: unknown): number => Number(v);

export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Scopes are stored space-separated, as OAuth writes them. */
export const scopesOf = (v: unknown): string[] => (typeof v === 'string' && v !== '' ? v.split(' ') : []);

/** Maps a unique-constraint failure from SQLite or PostgreSQL to the field it concerns. */
export function uniqueField(err: unknown): string | undefined {
  const e = err as { code?: string; message?: string; constraint?: string };
  let column: string | undefined;
  if (e.code === '23505') {
    column = e.constraint; // PostgreSQL: users_email_unique, users_name_key_unique, device_authorizations_user_code_hash_unique
  } else if (e.code === 'SQLITE_CONSTRAINT_UNIQUE') {
    // knex prefixes the whole statement, which names every column: read only SQLite's own part.
    column = /UNIQUE constraint failed: ([\w.]+)/.exec(e.message ?? '')?.[1];
  } else {
    return undefined;
  }
  if (column?.includes('name_key')) return 'name';
  if (column?.includes('credential_id')) return 'credential';
  if (column?.includes('reports')) return 'report';
  if (column?.includes('user_code')) return 'userCode';
  if (column?.includes('email')) return 'email';
  return 'value';
}
