import type { Store } from './types.js';

/**
 * Every method of the Store interface, by name. The store suite (test/store.test.ts) fails when one
 * of them is not called on both databases, and the compiler fails when this list and the interface
 * differ: a method added to Store must be added here, and then to the suite.
 */
export const STORE_METHODS = [
  'migrate',
  'rateLimiter',
  'ping',
  'close',
  'countUsers',
  'createUser',
  'getUser',
  'getPublicUser',
  'getUserByName',
  'getUserByEmail',
  'updateUser',
  'recordHeartbeat',
  'swapPfpTimestamp',
  'createApp',
  'getApp',
  'listAppsByOwner',
  'setAppSecret',
  'deleteApp',
  'createCode',
  'getCode',
  'redeemCode',
  'revokeTokensOfCode',
  'getTokenWithUser',
  'createGame',
  'getGame',
  'listGames',
  'getSession',
  'setSession',
  'deleteSession',
  'deleteUserSessions',
  'setUserPassword',
  'deleteUser',
  'listGamesByAuthor',
  'getGrant',
  'saveGrant',
  'touchGrant',
  'listGrants',
  'revokeGrant',
  'listUserSessions',
  'deleteUserSession',
  'createEmailLink',
  'getEmailLink',
  'deleteEmailLink',
  'redeemEmailLink',
  'onDatabaseError',
  'recordSignIn',
  'listSignIns',
  'revokeToken',
  'purgeExpired',
] as const satisfies readonly (keyof Store)[];

/** Compiles only while no Store method is missing from STORE_METHODS. */
const unlisted: Record<Exclude<keyof Store, (typeof STORE_METHODS)[number]>, never> = {};
void unlisted;
