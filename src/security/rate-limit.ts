/**
 * Rate limits behind a small interface. The counters live in the database (Store.rateLimits.rateLimiter,
 * rate-limiter-flexible's Postgres/SQLite stores), so several service instances on one database
 * share them and a restart does not reset them (docs/decisions.md#rate-limits).
 *
 * Every count is one atomic increment-and-test in the database (an upsert that returns the new
 * count), and guesses are counted before they are checked (`attempt`): of a burst of N parallel
 * guesses at most the limit are ever checked, whatever N.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimited } from '../domain/errors.js';
import { addressGroup } from './addresses.js';
import type { Store } from '../store/types.js';

export interface Limiter {
  /** Counts one event for `key`; throws RateLimited (with the seconds to wait) once over the limit. */
  consume(key: string): Promise<void>;
  /** Gives back one event `consume` counted for `key` (an attempt that turned out right). */
  refund(key: string): Promise<void>;
  /** Forgets `key` (e.g. after a password reset). */
  reset(key: string): Promise<void>;
}

/** The key an account's limits count it by. */
export function accountKey(userId: number): string {
  return `user:${userId}`;
}

/**
 * One guess under `limiter`: counted before `check` runs (429, and nothing checked, once over the
 * limit), and given back when `check` resolves, so only wrong guesses stay counted. A `check` that
 * throws (a wrong guess) keeps its count.
 */
export async function attempt<T>(limiter: Limiter, key: string, check: () => Promise<T>): Promise<T> {
  await limiter.consume(key);
  const result = await check();
  await limiter.refund(key);
  return result;
}

export interface LimitRule {
  /** Events allowed per window. */
  points: number;
  /** Window length in seconds. */
  seconds: number;
}

export interface Limits {
  /** Sign-in attempts per client address (passwords, passkeys, second steps, confirmations). */
  signInIp: Limiter;
  /** Wrong passwords per account (the sign-in form and every confirmation with the password). */
  signInAccount: Limiter;
  /** Wrong second-step codes per account: never reset by a right password (docs/decisions.md#rate-limits). */
  secondStepAccount: Limiter;
  /** Wrong codes per owed second step: over it, the step ends and the password is asked again. */
  secondStepAttempt: Limiter;
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
  /** Device sign-ins started (`/api/oauth/device_authorization`), per client address: each stores a row. */
  deviceStartIp: Limiter;
  /** Wrong user codes typed on /device, per client address (guessing another person's code). */
  deviceCodeIp: Limiter;
  /** Wrong user codes typed on /device, per account (the same, from many addresses). */
  deviceCodeAccount: Limiter;
  /** Sign-ins through upstream identity providers, per client address: each start and each callback (each callback costs a call to the upstream). */
  upstreamIp: Limiter;
}

const DEFAULT_LIMITS: Record<keyof Limits, LimitRule> = {
  signInIp: { points: 30, seconds: 10 * 60 },
  signInAccount: { points: 10, seconds: 15 * 60 },
  secondStepAccount: { points: 10, seconds: 60 * 60 },
  secondStepAttempt: { points: 5, seconds: 5 * 60 },
  signUpIp: { points: 20, seconds: 60 * 60 },
  forgotPasswordIp: { points: 10, seconds: 60 * 60 },
  forgotPasswordLogin: { points: 5, seconds: 60 * 60 },
  forgotPasswordAccount: { points: 3, seconds: 60 * 60 },
  verificationResend: { points: 5, seconds: 60 * 60 },
  emailChange: { points: 5, seconds: 60 * 60 },
  reportUser: { points: 10, seconds: 60 * 60 },
  pictureUpload: { points: 10, seconds: 10 * 60 },
  deviceStartIp: { points: 30, seconds: 10 * 60 },
  deviceCodeIp: { points: 10, seconds: 15 * 60 },
  deviceCodeAccount: { points: 10, seconds: 60 * 60 },
  upstreamIp: { points: 30, seconds: 10 * 60 },
};

function tooMany(res: RateLimiterRes): RateLimited {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new RateLimited(`Too many attempts, retry in ${seconds} seconds`, seconds);
}

/** Told about every refusal (metrics count them). */
type RefusalListener = () => void;

/** The limits that count per client address: by addressGroup (an IPv6 /64 as one). */
const PER_ADDRESS: ReadonlySet<keyof Limits> = new Set(['signInIp', 'signUpIp', 'forgotPasswordIp', 'deviceStartIp', 'deviceCodeIp', 'upstreamIp']);

/** A Limiter over any rate-limiter-flexible limiter; `keyOf` turns the caller's key into the counted one. */
function limiterOf(limiter: RateLimiterAbstract, keyOf: (key: string) => string, onRefused?: RefusalListener): Limiter {
  return {
    async consume(key) {
      try {
        await limiter.consume(keyOf(key));
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          onRefused?.();
          throw tooMany(err);
        }
        throw err;
      }
    },
    async refund(key) {
      const res = await limiter.reward(keyOf(key), 1);
      // The window ended between the count and the refund: the refund opened a new window below
      // zero, which would allow an extra event; the key is simply forgotten instead.
      if (res.consumedPoints < 0) await limiter.delete(keyOf(key));
    },
    async reset(key) {
      await limiter.delete(keyOf(key));
    },
  };
}

/** The service's limits, counted in the store (shared across instances). */
export function storeLimits(
  store: Pick<Store, 'rateLimits'>,
  rules: Partial<Record<keyof Limits, LimitRule>> = {},
  onRefused?: (limit: keyof Limits) => void,
): Limits {
  const all = { ...DEFAULT_LIMITS, ...rules };
  const make = (name: keyof Limits) =>
    limiterOf(
      store.rateLimits.rateLimiter({ keyPrefix: name, points: all[name].points, seconds: all[name].seconds }),
      PER_ADDRESS.has(name) ? addressGroup : (key) => key,
      onRefused && (() => onRefused(name)),
    );
  const names = Object.keys(DEFAULT_LIMITS) as (keyof Limits)[];
  return Object.fromEntries(names.map((name) => [name, make(name)])) as unknown as Limits;
}
