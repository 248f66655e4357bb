import type { Store } from './types.js';

/**
 * Every method of the Store interface, by name, grouped by the aggregate interface that declares
 * it (src/store/<aggregate>/store.ts). The store suite (test/store/store.test.ts) fails when one of them
 * is not called on both databases, and the compiler fails when this list and the interface differ:
 * a method added to Store must be added here, and then to the suite.
 */
export const STORE_METHODS = [
  // StoreLifecycle
  'migrate',
  'ping',
  'close',
  'onDatabaseError',

  // UserStore
  'countUsers',
  'createUser',
  'getUser',
  'getPublicUser',
  'getPfpTimestamp',
  'getUserByName',
  'getUserByEmail',
  'updateUser',
  'setFirstPassword',
  'recordHeartbeat',
  'swapPfpTimestamp',
  'deleteUser',

  // AppStore
  'createApp',
  'getApp',
  'listAppsByOwner',
  'setAppSecret',
  'updateApp',
  'deleteApp',
  'createCode',
  'getCode',
  'getAppAndCode',
  'redeemCode',
  'revokeTokensOfCode',
  'getTokenWithUser',
  'getAppAndToken',
  'revokeToken',

  // RefreshTokenStore
  'redeemCodeWithRefresh',
  'getRefreshToken',
  'rotateRefreshToken',
  'revokeRefreshFamily',

  // DeviceAuthorizationStore
  'createDeviceAuthorization',
  'getDeviceAuthorizationByUserCode',
  'decideDeviceAuthorization',
  'pollDeviceAuthorization',
  'redeemDeviceAuthorization',

  // SigningKeyStore
  'listSigningKeys',
  'addSigningKey',
  'retireSigningKey',
  'dropSigningKeys',

  // UpstreamStore
  'addUpstream',
  'listUpstreams',
  'getUpstream',
  'setUpstreamEnabled',
  'setUpstreamTrustMfa',
  'removeUpstream',

  // UpstreamIdentityStore
  'findUpstreamIdentity',
  'linkUpstreamIdentity',
  'listUpstreamIdentities',
  'touchUpstreamIdentity',
  'unlinkUpstreamIdentity',

  // GameStore
  'createGame',
  'getGame',
  'listGames',
  'listGamesByAuthor',
  'updateGame',
  'deleteGame',

  // GrantStore
  'getGrant',
  'saveGrant',
  'touchGrant',
  'listGrants',
  'revokeGrant',

  // SessionStore
  'getSession',
  'setSession',
  'updateSession',
  'listUserSessions',
  'deleteUserSession',
  'deleteSession',

  // EmailLinkStore
  'createEmailLink',
  'getEmailLink',
  'deleteEmailLink',
  'listEmailLinks',
  'redeemEmailLink',

  // SignInStore
  'recordSignIn',
  'listSignIns',

  // PasskeyStore
  'createPasskey',
  'listPasskeys',
  'getPasskeyByCredentialId',
  'renamePasskey',
  'deletePasskey',
  'recordPasskeyUse',
  // AuthenticatorAppStore
  'getTotp',
  'savePendingTotp',
  'confirmTotp',
  'useTotpStep',
  'deleteTotp',
  'replaceRecoveryCodes',
  'useRecoveryCode',
  'countRecoveryCodes',
  'listRecoveryCodeHashes',
  'listLegacyRecoveryCodes',
  'rewriteRecoveryCodeHash',
  'deleteFactors',

  // ModerationStore
  'suspendUser',
  'liftSuspension',
  'hideBio',
  'setModLevel',
  'removeGame',
  'addModerationAction',
  'listModerationActions',
  'createReport',
  'getReport',
  'listOpenReports',
  'closeReport',
  'findUsers',

  // RateLimitStore
  'rateLimiter',

  // PurgeStore
  'purgeExpired',

  // SecurityEventStore
  'recordSecurityEvent',

  // PictureRowStore
  'insertPictures',
  'getPicture',
  'deletePictures',
  'sweepPictures',
  'usersWithoutPictureRows',
] as const satisfies readonly (keyof Store)[];

/** Compiles only while no Store method is missing from STORE_METHODS. */
const unlisted: Record<Exclude<keyof Store, (typeof STORE_METHODS)[number]>, never> = {};
void unlisted;
