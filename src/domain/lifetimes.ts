const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long each thing the service issues or holds lives, in milliseconds: the one table, which
 * docs/decisions.md#lifetimes shows (test/docs/lifetimes.test.ts keeps the two the same).
 */
export const LIFETIMES = {
  /** An access token (the token response's `expires_in`, in seconds: 600). */
  accessToken: 10 * MINUTE,
  /** An ID token (`exp` - `iat`). */
  idToken: 10 * MINUTE,
  /** A refresh token left unused (the default of REFRESH_TOKEN_IDLE_SECONDS); each refresh starts it again. */
  refreshTokenIdle: 14 * DAY,
  /** A sign-in's refresh tokens at most, from its code exchange (the default of REFRESH_TOKEN_ABSOLUTE_SECONDS). */
  refreshTokenAbsolute: 90 * DAY,
  /** A device authorization's two codes (RFC 8628: `expires_in`), from the device's request to its last poll. */
  deviceCode: 10 * MINUTE,
  /** An authorization code, from the redirect to the exchange. */
  authorizationCode: 5 * MINUTE,
  /** A browser session (and the CSRF cookie of a visitor without one). */
  session: 14 * DAY,
  /** The second step owed after a right password (the authenticator app or a recovery code). */
  secondStep: 5 * MINUTE,
  /** A passkey challenge, one per ceremony (adding, signing in, confirming). */
  passkeyChallenge: 5 * MINUTE,
  /** A sign-in counts as fresh for prompt=login and max_age=0 (the /oauth request it was made for). */
  freshSignIn: 10 * MINUTE,
  /** A sign-in through an upstream, from its button to the callback; and the identity it brought back, waiting for a name or a link. */
  upstreamSignIn: 10 * MINUTE,
  /** A confirmation with a passkey stands in for the password before a sensitive change. */
  confirmation: 5 * MINUTE,
  /** A link that verifies an address. */
  verificationLink: 24 * HOUR,
  /** A link that changes the address to a new one. */
  addressChangeLink: 24 * HOUR,
  /** A password-reset link. */
  passwordResetLink: HOUR,
  /** A retired signing key stays published (its ID tokens still verify), then goes. */
  retiredSigningKey: 15 * MINUTE,
} as const;
