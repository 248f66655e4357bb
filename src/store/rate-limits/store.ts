import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** One rate limit: `points` events per `seconds`, counted under keys starting with `keyPrefix`. */
export interface RateLimitRule {
  keyPrefix: string;
  points: number;
  seconds: number;
}

export interface RateLimitStore {
  /**
   * A limiter counting in the database (table rate_limits), so every service instance on the
   * same database shares one count per key.
   */
  rateLimiter(rule: RateLimitRule): RateLimiterAbstract;
}
