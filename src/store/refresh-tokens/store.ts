import type { Redemption, TokenRecord } from '../../domain/apps.js';
import type { RefreshTokenRecord, Rotation } from '../../domain/refresh-tokens.js';

/** Refresh tokens, in families (one per sign-in), rotated on every use. */
export interface RefreshTokenStore {
  /**
   * redeemCode (src/store/apps/store.ts) for a code granted `offline_access`: in the same
   * transaction as the code's claim and its access token, the first refresh token of the family.
   */
  redeemCodeWithRefresh(codeHash: string, now: number, token: TokenRecord, refresh: RefreshTokenRecord): Promise<Redemption>;
  getRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * In one transaction: marks the token used if it is unused, unrevoked and unexpired, and stores
   * its successor with the access token issued with it. A token used already (an earlier refresh,
   * or a concurrent one that committed first) revokes its family instead (Rotation).
   */
  rotateRefreshToken(tokenHash: string, now: number, next: { refresh: RefreshTokenRecord; access: TokenRecord }): Promise<Rotation>;
  /** Revokes every refresh token of the family and every access token issued with them; how many this call revoked. */
  revokeRefreshFamily(familyId: string, now: number): Promise<number>;
}
