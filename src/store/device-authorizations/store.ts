import type { TokenRecord } from '../../domain/apps.js';
import type { DeviceApproval, DeviceAuthorizationRecord, DevicePoll } from '../../domain/device-authorizations.js';
import type { RefreshTokenRecord } from '../../domain/refresh-tokens.js';

/** Device authorizations (RFC 8628): one row per device code, decided on /device, redeemed once. */
export interface DeviceAuthorizationStore {
  /** Stores a new one; UniqueViolation('userCode') when its user code's hash is taken already (the caller draws another). */
  createDeviceAuthorization(record: DeviceAuthorizationRecord): Promise<void>;
  /** The one with this user code's hash, whatever its state (the caller tells expired and decided ones apart). */
  getDeviceAuthorizationByUserCode(userCodeHash: string): Promise<DeviceAuthorizationRecord | undefined>;
  /**
   * Records the person's decision, if none is recorded and the code has not expired at `now`
   * (one conditional update: of two concurrent decisions exactly one is recorded). `approval`
   * for an approval, null for a denial (then only `userId` of who denied is kept). `userId` is
   * `decidedBy` either way (the caller passes the same person in `approval`). True when this call
   * recorded it.
   */
  decideDeviceAuthorization(userCodeHash: string, now: number, decidedBy: number, approval: DeviceApproval | null): Promise<boolean>;
  /**
   * One poll of the token endpoint, counted atomically: sets lastPolledAt to `now` and, when the
   * previous poll was less than intervalSeconds before `now`, adds 5 to intervalSeconds and says
   * slow_down. Returns the record as it is after this poll.
   */
  pollDeviceAuthorization(deviceCodeHash: string, now: number): Promise<DevicePoll>;
  /**
   * Redeems an approved, unused, unexpired device code: in one transaction marks it used and
   * stores its access token and (with offline_access) the first refresh token of its family
   * (familyId = deviceCodeHash). False when it was not redeemable (used, by a concurrent poll
   * among others): nothing written then.
   */
  redeemDeviceAuthorization(deviceCodeHash: string, now: number, token: TokenRecord, refresh: RefreshTokenRecord | null): Promise<boolean>;
}
