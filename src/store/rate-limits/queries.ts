import { type RateLimiterAbstract, RateLimiterPostgres, RateLimiterSQLite } from 'rate-limiter-flexible';
import { Queries } from '../queries.js';
import type { RateLimitRule } from './store.js';

/** RateLimitStore (store.ts) in knex: store.rateLimits in KnexStore (src/store/knex-store.ts), on both databases. */
export class RateLimitsQueries extends Queries {
  rateLimiter(rule: RateLimitRule): RateLimiterAbstract {
    // The table comes from migration 003, not from the limiter (tableCreated), so it is created once
    // by the migration lock instead of by every instance racing at start.
    const opts = {
      storeClient: this.knex,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: rule.keyPrefix,
      points: rule.points,
      duration: rule.seconds,
    };
    return this.dialect === 'postgres' ? new RateLimiterPostgres(opts) : new RateLimiterSQLite(opts);
  }
}
