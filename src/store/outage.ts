/**
 * The store boundary of a database outage: an error that means "the database cannot be reached
 * right now" (connection refused or dropped, the pool's wait ran out, the server shutting down or
 * starting, a statement timeout, a SQLite file locked too long or a full disk) becomes the domain's
 * Unavailable, so the HTTP layer answers 503 and the CLI exits 5, instead of a 500 for a bug.
 * Every other database error (a bug) passes through unchanged.
 */
import { Unavailable } from '../domain/errors.js';
import { UniqueViolation } from '../domain/errors.js';
import type { DatabaseErrorListener } from './types.js';

export const UNAVAILABLE_MESSAGE = 'The database is unavailable; try again shortly';

/** Node's socket errors on a connection to PostgreSQL. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** SQLite: locked beyond busy_timeout, a full disk, an I/O error, the file cannot be opened. */
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN)/;
/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 53 (insufficient resources: too many
 * connections, disk full), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now) and
 * 57014 (query canceled: the statement_timeout fired).
 */
const PG_STATES = /^(08|53|57P0[1-3]$|57014$)/;
/** pg's and knex's own errors carry no code, only these messages. */
const MESSAGES = /Connection terminated|connection error|not queryable|Knex: Timeout acquiring a connection|timeout exceeded when trying to connect|Query read timeout|Connection ended unexpectedly/i;

export function isUnavailableError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (err instanceof Unavailable) return true;
  const { code, name, message } = err as { code?: unknown; name?: unknown; message?: unknown };
  if (name === 'KnexTimeoutError') return true;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SQLITE_CODES.test(code) || PG_STATES.test(code))) return true;
  return typeof message === 'string' && MESSAGES.test(message);
}

/**
 * The store behind the outage guard: every method's failure mapped as above (and reported to
 * `onError`). A method that returns an object of methods (rateLimiter) has that object's methods
 * guarded too. The guarded object inherits from the store and holds one wrapper per method, made
 * once: no Proxy trap on the hot path, only the wrapper's call and its catch.
 */
export function withOutageGuard<T extends object>(store: T, onError: () => DatabaseErrorListener | undefined): T {
  const guarded = Object.create(store) as T;
  for (let proto = Object.getPrototypeOf(store) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value: unknown = Object.getOwnPropertyDescriptor(proto, name)?.value;
      // Methods only (the nearest definition wins): getters and own fields such as the knex
      // instance are read through the prototype link, unchanged.
      if (name === 'constructor' || typeof value !== 'function' || Object.hasOwn(guarded, name)) continue;
      const wrapper = guardFunction(value as (...args: unknown[]) => unknown, store, onError, name === 'rateLimiter');
      Object.defineProperty(guarded, name, { value: wrapper, writable: true, configurable: true });
    }
  }
  return guarded;
}

function guardFunction(
  fn: (...args: unknown[]) => unknown,
  self: object,
  onError: () => DatabaseErrorListener | undefined,
  returnsMethods: boolean,
): (...args: unknown[]) => unknown {
  const fail = (err: unknown): never => {
    // Expected answers, not failures: a taken name, and the rate limiter's "over the limit".
    if (err instanceof UniqueViolation || !(err instanceof Error)) throw err;
    const unavailable = isUnavailableError(err);
    onError()?.(unavailable ? 'unavailable' : 'other');
    if (unavailable) throw new Unavailable(UNAVAILABLE_MESSAGE);
    throw err;
  };
  return (...args) => {
    let result: unknown;
    try {
      result = fn.apply(self, args);
    } catch (err) {
      return fail(err);
    }
    if (result instanceof Promise) return result.catch(fail);
    if (returnsMethods && typeof result === 'object' && result !== null) return withOutageGuard(result, onError);
    return result;
  };
}
