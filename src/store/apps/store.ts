import type { AppPatch, AppRecord, CodeRecord, Redemption, TokenRecord, TokenWithUser } from '../../domain/apps.js';

/** OAuth clients with the authorization codes and access tokens issued to them. */
export interface AppStore {
  createApp(app: AppRecord): Promise<void>;
  getApp(clientId: string): Promise<AppRecord | undefined>;
  /** The apps a user owns, oldest first. */
  listAppsByOwner(ownerId: number): Promise<AppRecord[]>;
  setAppSecret(clientId: string, secretHash: string): Promise<boolean>;
  /** Changes the fields the patch names (name, redirect URIs, post-logout redirect URIs); false when there is no such app. */
  updateApp(clientId: string, patch: AppPatch): Promise<boolean>;
  /** Deletes the app with its codes, tokens and device authorizations. */
  deleteApp(clientId: string): Promise<boolean>;

  createCode(code: CodeRecord): Promise<void>;
  getCode(codeHash: string): Promise<CodeRecord | undefined>;
  /** getApp and getCode in one read (the token exchange: one round trip on PostgreSQL). */
  getAppAndCode(clientId: string, codeHash: string): Promise<{ app: AppRecord | undefined; code: CodeRecord | undefined }>;
  /**
   * Atomically marks the code used, if it is unused and unexpired, and stores the token issued
   * from it; otherwise writes nothing, or, when the code was used already (another redemption got
   * there first), revokes the tokens issued from it. One transaction either way (Redemption).
   */
  redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<Redemption>;
  /** Revokes every token issued from the code. Returns how many were revoked. */
  revokeTokensOfCode(codeHash: string, now: number): Promise<number>;

  getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined>;
  /** getApp and getTokenWithUser in one read (introspection, revocation: one round trip on PostgreSQL). */
  getAppAndToken(clientId: string, tokenHash: string): Promise<{ app: AppRecord | undefined; tokenWithUser: TokenWithUser | undefined }>;
  /**
   * Revokes the token if it belongs to `clientId` and is not revoked yet; returns whether this
   * call revoked it.
   */
  revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean>;
}
