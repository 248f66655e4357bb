import { RateLimited } from '../domain/errors.js';
/**
 * Rate limits behind a small interface. The counters live in the database (Store.rateLimiter,
 * rate-limiter-flexible's Postgres/SQLite stores), so several service instances on one database
 * share them and a restart does not reset them (docs/decisions.md#rate-limits).
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitStore } from '../store/types.js';

export interface Limiter {
  /** Counts one event for `key`; throws RateLimited (with the seconds to wait) once over the limit. */
  consume(key: string): Promise<void>;
  /** Throws the same 429 when `key` is already over the limit, without counting. */
  check(key: string): Promise<void>;
  /** Forgets `key` (e.g. after a successful sign-in). */
  reset(key: string): Promise<void>;
}

export interface LimitRule {
  /** Events allowed per window. */
  points: number;
  /** Window length in seconds. */
  seconds: number;
}

export interface Limits {
  /** Sign-in attempts per client address. */
  signInIp: Limiter;
  /** Failed sign-ins per account. */
  signInAccount: Limiter;
  /** Sign-ups per client address. */
  signUpIp: Limiter;
  /** Forgot-password requests per client address. */
  forgotPasswordIp: Limiter;
  /** Forgot-password requests per name or address asked for (known or not: the answer is the same). */
  forgotPasswordLogin: Limiter;
  /** Reset mails per account, whatever name or address was asked (over it, mails are dropped silently). */
  forgotPasswordAccount: Limiter;
  /** Verification links sent again, per account. */
  verificationResend: Limiter;
  /** Change-of-address requests per account (each sends two mails and checks the password). */
  emailChange: Limiter;
  /** Reports on other users, per reporter (docs/moderation.md#reports). */
  reportUser: Limiter;
  /** Picture uploads, per account (each costs a conversion; the CLI is not limited). */
  pictureUpload: Limiter;
}

const DEFAULT_LIMITS: Record<keyof Limits, LimitRule> = {
  signInIp: { points: 30, seconds: 10 * 60 },
  signInAccount: { points: 10, seconds: 15 * 60 },
  signUpIp: { points: 20, seconds: 60 * 60 },
  forgotPasswordIp: { points: 10, seconds: 60 * 60 },
  forgotPasswordLogin: { points: 5, seconds: 60 * 60 },
  forgotPasswordAccount: { points: 3, seconds: 60 * 60 },
  verificationResend: { points: 5, seconds: 60 * 60 },
  emailChange: { points: 5, seconds: 60 * 60 },
  reportUser: { points: 10, seconds: 60 * 60 },
  pictureUpload: { points: 10, seconds: 10 * 60 },
};

function tooMany(res: RateLimiterRes): RateLimited {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new RateLimited(`Too many attempts, retry in ${seconds} seconds`, seconds);
}

/** Told about every refusal (metrics count them). */
type RefusalListener = () => void;

/** A Limiter over any rate-limiter-flexible limiter allowing `points` per window. */
function limiterOf(limiter: RateLimiterAbstract, points: number, onRefused?: RefusalListener): Limiter {
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          onRefused?.();
          throw tooMany(err);
        }
        throw err;
      }
    },
    async check(key) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= points) {
        onRefused?.();
        throw tooMany(res);
      }
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

/** The service's limits, counted in the store (shared across instances). */
export function storeLimits(
  store: RateLimitStore,
  rules: Partial<Record<keyof Limits, LimitRule>> = {},
  onRefused?: (limit: keyof Limits) => void,
): Limits {
  const all = { ...DEFAULT_LIMITS, ...rules };
  const make = (name: keyof Limits) =>
    limiterOf(
      store.rateLimiter({ keyPrefix: name, points: all[name].points, seconds: all[name].seconds }),
      all[name].points,
      onRefused && (() => onRefused(name)),
    );
  const names = Object.keys(DEFAULT_LIMITS) as (keyof Limits)[];
  return Object.fromEntries(names.map((name) => [name, make(name)])) as unknown as Limits;
}
