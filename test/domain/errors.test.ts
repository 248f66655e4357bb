/** Domain errors (src/domain/errors.ts) and the one map that turns them into HTTP answers and exit codes. */
import { describe, expect, it } from 'vitest';
import { EXIT_CODE } from '../../src/cli/admin.js';
import {
  Conflict,
  DomainError,
  Forbidden,
  InvalidGrant,
  InvalidInput,
  NotFound,
  RateLimited,
  TooLarge,
  Unauthenticated,
  Unavailable,
  BadGateway,
} from '../../src/domain/errors.js';
import { ApiError, httpErrorOf } from '../../src/http/error-responses.js';

describe('domain errors', () => {
  it('are Errors with a name and message but no stack trace, and leave Error.stackTraceLimit alone', () => {
    const before = Error.stackTraceLimit;
    const err = new NotFound('User 7 not found');
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(DomainError);
    expect({ name: err.name, message: err.message, kind: err.kind, stack: err.stack }).toEqual({
      name: 'NotFound',
      message: 'User 7 not found',
      kind: 'not_found',
      stack: undefined,
    });
    expect(String(err)).toBe('NotFound: User 7 not found');
    expect(Error.stackTraceLimit).toBe(before);
  });

  it('map to one HTTP status each, with the challenge or Retry-After they carry as headers', () => {
    expect(httpErrorOf(new InvalidInput('a'))).toEqual({ status: 400, message: 'a', headers: {} });
    expect(httpErrorOf(new InvalidGrant('b'))).toEqual({ status: 400, message: 'b', headers: {} });
    expect(httpErrorOf(new Unauthenticated('c', 'Bearer realm="whois"'))).toEqual({
      status: 401,
      message: 'c',
      headers: { 'WWW-Authenticate': 'Bearer realm="whois"' },
    });
    expect(httpErrorOf(new Unauthenticated('c2'))).toEqual({ status: 401, message: 'c2', headers: {} });
    expect(httpErrorOf(new Forbidden('d'))).toEqual({ status: 403, message: 'd', headers: {} });
    expect(httpErrorOf(new NotFound('e'))).toEqual({ status: 404, message: 'e', headers: {} });
    expect(httpErrorOf(new Conflict('f'))).toEqual({ status: 409, message: 'f', headers: {} });
    expect(httpErrorOf(new TooLarge('g'))).toEqual({ status: 413, message: 'g', headers: {} });
    expect(httpErrorOf(new RateLimited('h', 12))).toEqual({ status: 429, message: 'h', headers: { 'Retry-After': '12' } });
    expect(httpErrorOf(new Unavailable('i'))).toEqual({ status: 503, message: 'i', headers: {} });
    expect(httpErrorOf(new BadGateway('i2'))).toEqual({ status: 502, message: 'i2', headers: {} });
    expect(httpErrorOf(new ApiError(405, 'j', { Allow: 'GET' }))).toEqual({ status: 405, message: 'j', headers: { Allow: 'GET' } });
  });

  it('anything else is not an expected failure (a bug, answered 500 by the error middleware)', () => {
    expect(httpErrorOf(new Error('boom'))).toBeUndefined();
    expect(httpErrorOf('boom')).toBeUndefined();
  });

  it('map to the CLI exit codes docs/operations.md lists', () => {
    expect(EXIT_CODE).toEqual({
      invalid_input: 1,
      invalid_grant: 1,
      unauthenticated: 1,
      forbidden: 1,
      too_large: 1,
      rate_limited: 1,
      not_found: 3,
      conflict: 4,
      unavailable: 5,
      bad_gateway: 5,
    });
  });
});
