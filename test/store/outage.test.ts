/** The store's outage guard (src/store/outage.ts): which failures become Unavailable, and what passes through. */
import { describe, expect, it } from 'vitest';
import { Unavailable } from '../../src/domain/errors.js';
import { openStoreAt } from '../../src/store/open.js';
import { UniqueViolation } from '../../src/domain/errors.js';
import { isUnavailableError, UNAVAILABLE_MESSAGE, withOutageGuard } from '../../src/store/outage.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isUnavailableError', () => {
  it.each([
    ['a refused connection', coded('ECONNREFUSED')],
    ['a reset connection', coded('ECONNRESET')],
    ['PostgreSQL shutting down (57P01)', coded('57P01', 'terminating connection due to administrator command')],
    ['PostgreSQL starting up (57P03)', coded('57P03', 'the database system is starting up')],
    ['a connection exception (08006)', coded('08006')],
    ['too many connections (53300)', coded('53300')],
    ['a statement timeout (57014)', coded('57014', 'canceling statement due to statement timeout')],
    ['a busy SQLite file', coded('SQLITE_BUSY')],
    ['a full disk under SQLite', coded('SQLITE_FULL')],
    ["knex's pool timeout", Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })],
    ["pg's dropped connection", new Error('Connection terminated unexpectedly')],
  ])('counts %s', (_what, err) => {
    expect(isUnavailableError(err)).toBe(true);
  });

  it.each([
    ['a syntax error (42601)', coded('42601')],
    ['a missing table (42P01)', coded('42P01')],
    ['a unique violation (23505)', coded('23505')],
    ['a SQLite constraint', coded('SQLITE_CONSTRAINT_UNIQUE')],
    ['a plain bug', new TypeError('x is not a function')],
  ])('does not count %s (a bug stays a 500)', (_what, err) => {
    expect(isUnavailableError(err)).toBe(false);
  });
});

describe('withOutageGuard', () => {
  class Fake {
    calls = 0;
    async down(): Promise<void> {
      throw coded('ECONNREFUSED');
    }
    async bug(): Promise<void> {
      throw coded('42P01');
    }
    async taken(): Promise<void> {
      throw new UniqueViolation('name');
    }
    async ok(): Promise<number> {
      return ++this.calls;
    }
    limiter() {
      return new FakeLimiter();
    }
  }
  /** Like rate-limiter-flexible's limiters: a class, its methods on the prototype. */
  class FakeLimiter {
    async consume(): Promise<void> {
      throw coded('ECONNRESET');
    }
    async refuse(): Promise<void> {
      // rate-limiter-flexible rejects with a plain object when over the limit.
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the library's own shape, reproduced
      throw { msBeforeNext: 1000 };
    }
  }

  it('turns an outage into Unavailable, reports every failure, and passes bugs, taken names and refusals through', async () => {
    const reported: string[] = [];
    const store = withOutageGuard(new Fake(), () => (kind) => reported.push(kind));
    await expect(store.down()).rejects.toEqual(new Unavailable(UNAVAILABLE_MESSAGE));
    await expect(store.bug()).rejects.toMatchObject({ code: '42P01' });
    await expect(store.taken()).rejects.toBeInstanceOf(UniqueViolation);
    expect(await store.ok()).toBe(1);
    expect(store.calls).toBe(1);
    expect(reported).toEqual(['unavailable', 'other']);
  });

  it('guards the methods of the limiter rateLimiter returns, and leaves its refusals alone', async () => {
    class WithLimiter extends Fake {
      rateLimiter() {
        return this.limiter();
      }
    }
    const store = withOutageGuard(new WithLimiter(), () => undefined);
    await expect(store.rateLimiter().consume()).rejects.toEqual(new Unavailable(UNAVAILABLE_MESSAGE));
    await expect(store.rateLimiter().refuse()).rejects.toEqual({ msBeforeNext: 1000 });
  });

  it('a real store on an unreachable PostgreSQL answers Unavailable from every method', async () => {
    const store = openStoreAt('postgres://postgres@127.0.0.1:1/idp');
    try {
      await expect(store.users.getUser(1)).rejects.toEqual(new Unavailable(UNAVAILABLE_MESSAGE));
      // A prepared statement on the pg pool of its own (PostgresStore) as much as knex.
      await expect(store.users.getPfpTimestamp(1)).rejects.toEqual(new Unavailable(UNAVAILABLE_MESSAGE));
      await expect(store.rateLimits.rateLimiter({ keyPrefix: 'x', points: 1, seconds: 1 }).consume('k')).rejects.toEqual(new Unavailable(UNAVAILABLE_MESSAGE));
      // The knex instance itself is not wrapped.
      expect(typeof store.knex.raw).toBe('function');
    } finally {
      await store.close();
    }
  });
});
