/**
 * The two targets of the typed client's suite (suite.ts): the real service (server.test.ts) and
 * the mock, `npm run mock` (mock.test.ts). And the ONE list of what the mock cannot do as the
 * service does, with the reason for each: MOCK_EXCEPTIONS.
 */
import type { IdentityClient, IdentityClientOptions } from '../../client/index.js';

/** A user as the suite expects the service to describe them. */
export interface TargetUser {
  id: number;
  name: string;
  email: string;
  /** ms since the epoch; absent for a user without a picture. */
  pfpTimestamp?: number;
  /** The OpenID `updated_at` claim (seconds). */
  updatedAt: number;
}

export interface CodeRequest {
  user: TargetUser;
  /** Space-separated scopes. */
  scope: string;
  /** Issue the code to the public app instead of the confidential one. */
  publicApp?: boolean;
  /** The redirect_uri the code is bound to (none: the game flow's codes). */
  redirectUri?: string;
  /** PKCE S256 challenge. */
  codeChallenge?: string;
  /** The OpenID Connect request's nonce (the ID token repeats it). */
  nonce?: string;
}

export interface Target {
  baseUrl: string;
  /** The issuer: metadata, picture claims. */
  issuer: string;
  /** A confidential app, and another one of another owner. */
  app: { clientId: string; clientSecret: string; redirectUri: string };
  otherApp: { clientId: string; clientSecret: string };
  /** A public app: no secret, every code with a PKCE challenge. */
  publicApp: { clientId: string; redirectUri: string };
  /** A public app whose grant_types include the device grant (RFC 8628): its client id alone. */
  deviceApp: { clientId: string };
  /** A user with a picture and a verified address, and one without a picture. */
  users: { withPicture: TargetUser; withoutPicture: TargetUser };
  /** An unused authorization code. */
  code(request: CodeRequest): Promise<string>;
  /**
   * Acts as the person on /device: `user` approves or denies the device that shows `userCode`.
   * The mock keeps no device codes: nothing to decide there (its answers are steered).
   */
  decideDevice(userCode: string, user: TargetUser, decision: 'approve' | 'deny'): Promise<void>;
  /** Now, in seconds: the `iat` of a token issued now. */
  nowSeconds(): number;
  /** Moves the target's clock `ms` forward (the service's; the mock has none): a device's waits, simulated. */
  advance(ms: number): void;
  /**
   * A client of `app` (with `options` over it). Against the mock, `steer` names the exception that
   * makes it answer as the service would here (its `Prefer` header goes with every call); a list
   * steers one call after another, and the calls after its end go unsteered (a device's polls).
   */
  client(options?: Partial<IdentityClientOptions>, steer?: SteeredException | readonly SteeredException[]): IdentityClient;
  /**
   * Whether this target cannot run the case of a server-only exception: true for the mock (which
   * notes the exception as used; the case then skips), false for the service.
   */
  serverOnly(name: ServerOnlyException): boolean;
  close(): Promise<void>;
}

type MockException =
  /** The `Prefer` header that makes the mock answer as the service would. */
  | { prefer: string; reason: string }
  /** No `Prefer` header makes the mock answer as the service would: the case runs against the service only. */
  | { serverOnly: true; reason: string };

/**
 * Where the mock cannot behave as the service: it checks no code, token or secret, keeps no state
 * across calls, and answers an error only when asked with `Prefer: code=N`. Most exceptions steer
 * the mock with a `Prefer` header to the contract's example of the answer the service gives, so the
 * case asserts the same answer on both targets; a server-only one skips its case on the mock.
 * mock.test.ts checks that the suite uses each of them.
 */
export const MOCK_EXCEPTIONS = {
  openidToken: { prefer: 'example=openid', reason: "The mock does not know a code's scopes: by default it answers the token without an id_token." },
  unknownClient: { prefer: 'code=401, example=unknownClient', reason: 'The mock knows no apps.' },
  wrongSecret: { prefer: 'code=401, example=wrongSecret', reason: 'The mock checks no client secret.' },
  publicWithSecret: { prefer: 'code=401, example=publicWithSecret', reason: 'The mock does not know which apps are public.' },
  codeReused: { prefer: 'code=400, example=used', reason: 'State across calls: the mock does not remember a code was redeemed.' },
  pkceDowngrade: { prefer: 'code=400, example=pkceDowngrade', reason: 'The mock did not issue the code, so it cannot know the code has no challenge.' },
  wrongVerifier: { prefer: 'code=400, example=wrongVerifier', reason: 'The mock did not issue the code, so it cannot know its challenge.' },
  revokedIntrospection: { prefer: 'example=inactive', reason: 'State across calls: the mock does not remember a token was revoked.' },
  revokedWhois: { prefer: 'code=401, example=revoked', reason: 'State across calls: the mock does not remember a token was revoked.' },
  otherAppsToken: { prefer: 'code=403', reason: 'The mock does not know which app a token was issued to.' },
  introspectWrongSecret: { prefer: 'code=401, example=wrongSecret', reason: 'The mock checks no client secret.' },
  refreshToken: { prefer: 'example=refresh', reason: "The mock does not know a code's scopes: by default it answers the token without a refresh_token." },
  refreshReused: { prefer: 'code=400, example=refreshReused', reason: 'State across calls: the mock does not remember a refresh token was used.' },
  refreshRevoked: { prefer: 'code=400, example=refreshRevoked', reason: 'State across calls: the mock does not remember a refresh token was revoked.' },
  refreshScope: { prefer: 'code=400, example=refreshScope', reason: "The mock does not know a refresh token's scopes." },
  refreshNotAllowed: { prefer: 'code=400, example=refreshNotAllowed', reason: "The mock does not know an app's grant_types." },
  refreshIntrospection: { prefer: 'example=refreshToken', reason: 'The mock does not know what a token is: by default it answers with the access token example.' },
  whoisWithoutEmail: { prefer: 'example=withoutEmail', reason: "The mock does not know a token's scopes or user: by default it answers with the email scope's example." },
  whoisUnknownToken: { prefer: 'code=401, example=invalid', reason: 'The mock accepts any token.' },
  whoisWithoutScope: { prefer: 'code=403', reason: "The mock does not know a token's scopes." },
  unknownUser: { prefer: 'code=404', reason: 'The mock knows no users: users/info answers its one example for any id.' },
  profileWithoutPicture: { prefer: 'example=withoutPicture', reason: 'The mock knows no users: by default users/info answers its first example (a user with a picture) for any id.' },
  pictureGone: { prefer: 'code=404', reason: "The mock draws a picture for any address, an old timestamp's included." },
  oidcOpenIdOnly: { prefer: 'example=openidOnly', reason: "The mock does not know a token's scopes: by default it answers with the profile and email claims." },
  oidcDefaultPicture: { prefer: 'example=defaultPicture', reason: "The mock does not know a token's scopes or user: by default it answers with the profile and email claims of a user with a picture." },
  oidcWithoutScope: { prefer: 'code=403', reason: "The mock does not know a token's scopes." },
  oidcUnknownToken: { prefer: 'code=401, example=invalid', reason: 'The mock accepts any token.' },
  deviceNotAllowed: { prefer: 'code=400, example=notAllowed', reason: "The mock does not know an app's grant_types." },
  devicePending: { prefer: 'code=400, example=devicePending', reason: 'The mock keeps no device codes: unless steered, it answers a poll with tokens at once.' },
  deviceSlowDown: { prefer: 'code=400, example=deviceSlowDown', reason: 'The mock does not time polls.' },
  deviceDenied: { prefer: 'code=400, example=deviceDenied', reason: 'Nobody decides on the mock: it keeps no device codes.' },
  deviceExpired: { prefer: 'code=400, example=deviceExpired', reason: 'The mock keeps no device codes, so none expires.' },
  deviceUsed: { prefer: 'code=400, example=deviceUsed', reason: 'State across calls: the mock does not remember a device code was answered.' },
  deviceInvalid: { prefer: 'code=400, example=deviceInvalid', reason: 'The mock checks no device code.' },
  deviceTokens: {
    serverOnly: true,
    reason: "The mock does not know a device code's scopes, and none of the token endpoint's examples has both a refresh_token and an id_token (nor an ID token for the device app).",
  },
  verifyIdToken: {
    serverOnly: true,
    reason:
      "verifyIdToken checks exp (and maxAge) against the real clock and takes no clock option, and the contract's example ID token, signed by its example JWKS key, " +
      'expired in December 2024 (mock.test.ts verifies it at its iat); the example discovery document also names http://localhost:3000, not the mock, as jwks_uri.',
  },
} as const satisfies Record<string, MockException>;

type Exceptions = typeof MOCK_EXCEPTIONS;

/** An exception the mock answers when steered with its `Prefer` header. */
export type SteeredException = { [K in keyof Exceptions]: Exceptions[K] extends { prefer: string } ? K : never }[keyof Exceptions];

/** An exception whose case runs against the service only. */
export type ServerOnlyException = Exclude<keyof Exceptions, SteeredException>;

/** The exceptions the suite has used (steered a call with, or skipped a case for). */
export const usedExceptions = new Set<keyof Exceptions>();

/** The `Prefer` header of a steered exception, noted as used. */
export function preferHeader(name: SteeredException): string {
  usedExceptions.add(name);
  return MOCK_EXCEPTIONS[name].prefer;
}

/** A server-only exception, noted as used: the mock skips its case. */
export function skipOnMock(name: ServerOnlyException): true {
  usedExceptions.add(name);
  return true;
}
