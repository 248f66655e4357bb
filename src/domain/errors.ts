/**
 * The expected failures of the service's own logic, named for what went wrong rather than for a
 * protocol. The domain modules (every module outside the HTTP shell, the handlers, the pages and
 * the CLI) throw these and nothing else (the store also throws UniqueViolation, at the end, which
 * the domain turns into one of these); src/http/error-responses.ts holds the one map that turns
 * each kind into an HTTP status and `{message}` (or an HTML page), and src/cli/admin.ts the one
 * that turns it into an exit code.
 *
 * They capture no stack trace: they are answers, not bugs, and capturing one was the largest cost of
 * a 404 on the hot endpoints. The prototype chain still includes Error.prototype (instanceof Error
 * holds), but Error's constructor (which captures the trace) is never called, so no global setting
 * such as Error.stackTraceLimit is touched.
 */

export type ErrorKind =
  | 'invalid_input'
  | 'invalid_grant'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'bad_gateway';

/**
 * The type half of Failure: an Error subtype to the type checker (and to lint's only-throw-error),
 * as the prototype chain set below makes it one at run time. A class cannot say so with `extends
 * Error` without calling Error's constructor, which is the cost avoided here.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Failure extends Error {
  stack?: string;
}

/** An expected failure without a stack trace (see above); the base of DomainError and the HTTP layer's ApiError. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Failure {
  readonly name: string;
  readonly message: string;

  constructor(message: string) {
    this.message = message;
    this.name = new.target.name;
  }

  toString(): string {
    return `${this.name}: ${this.message}`;
  }
}
Object.setPrototypeOf(Failure.prototype, Error.prototype);

export abstract class DomainError extends Failure {
  abstract readonly kind: ErrorKind;
}

/** The request or a value in it breaks a rule (a name too long, an unknown scope). */
export class InvalidInput extends DomainError {
  readonly kind = 'invalid_input';
}

/**
 * A grant_type the token endpoint does not offer: an InvalidInput whose OAuth error code
 * (RFC 6749 5.2) is `unsupported_grant_type` rather than `invalid_request`.
 */
export class UnsupportedGrantType extends InvalidInput {
  readonly oauthError = 'unsupported_grant_type';
}

/**
 * A scope the grant does not cover (a refresh asking for more than the sign-in was granted): an
 * InvalidInput whose OAuth error code (RFC 6749 5.2) is `invalid_scope`.
 */
export class InvalidScope extends InvalidInput {
  readonly oauthError = 'invalid_scope';
}

/**
 * A grant the app may not use (its `grant_types` lack it): an InvalidInput whose OAuth error code
 * (RFC 6749 5.2) is `unauthorized_client`, answered 400 as that section says.
 */
export class UnauthorizedClient extends InvalidInput {
  readonly oauthError = 'unauthorized_client';
}

/**
 * A device code polled before the person decided on /device, faster than its interval, after a
 * denial, or past its expiry (RFC 8628 3.5): an InvalidInput (400) whose OAuth error code says
 * which, so the device knows whether to keep polling.
 */
export class DevicePollRefused extends InvalidInput {
  constructor(
    readonly oauthError: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token',
    message: string,
  ) {
    super(message);
  }
}

/** An authorization code or refresh token that is unknown, expired, used, or does not match what it was issued for. */
export class InvalidGrant extends DomainError {
  readonly kind = 'invalid_grant';
}

/**
 * Credentials are missing or wrong. `challenge` is the RFC 6750 / RFC 7617 challenge the caller
 * should be sent (for example `Bearer realm="whois", error="invalid_token"`).
 */
export class Unauthenticated extends DomainError {
  readonly kind = 'unauthenticated';
  constructor(
    message: string,
    readonly challenge?: string,
  ) {
    super(message);
  }
}

/** What a request that needs a signed-in user answers (401) without one: the contract's SignInRequired. */
export const SIGN_IN_FIRST = 'Sign in first';

/** Authenticated, but not allowed to do this. `challenge` as on Unauthenticated (insufficient_scope). */
export class Forbidden extends DomainError {
  readonly kind = 'forbidden';
  constructor(
    message: string,
    readonly challenge?: string,
  ) {
    super(message);
  }
}

export class NotFound extends DomainError {
  readonly kind = 'not_found';
}

/** The state changed under the request (a name taken, a concurrent change); retrying may work. */
export class Conflict extends DomainError {
  readonly kind = 'conflict';
}

export class TooLarge extends DomainError {
  readonly kind = 'too_large';
}

export class RateLimited extends DomainError {
  readonly kind = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A dependency (the database, the mail server) cannot be reached right now. */
export class Unavailable extends DomainError {
  readonly kind = 'unavailable';
}

/** A service this one called answered something it cannot use (an upstream identity provider's invalid answer). */
export class BadGateway extends DomainError {
  readonly kind = 'bad_gateway';
}

/**
 * A unique column refused a write (a taken name or address, a registered credential, an open
 * report): thrown by the store, answered by the domain module that knows what was taken.
 */
export class UniqueViolation extends Error {
  constructor(readonly field: string) {
    super(`${field} is already taken`);
  }
}
