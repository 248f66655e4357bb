import type { Knex } from 'knex';
import type { Dialect } from '../domain/database.js';

/**
 * What every aggregate's queries (src/store/<aggregate>/queries.ts) run on: the knex instance and
 * its dialect. Each aggregate's class extends this one and is never made on its own; KnexStore
 * (knex-store.ts) is all of them at once. A query that must share another aggregate's transaction
 * takes a `Knex | Knex.Transaction` argument instead of reading `this.knex`.
 */
export abstract class Queries {
  constructor(
    readonly knex: Knex,
    protected readonly dialect: Dialect,
  ) {}
}
