import type { Ended, Ends } from '../../domain/security-events.js';
import type { TotpRecord } from '../../domain/authenticator-app.js';

/** The authenticator app (TOTP) and its single-use recovery codes (stored by hash). */
export interface AuthenticatorAppStore {
  getTotp(userId: number): Promise<TotpRecord | undefined>;
  /**
   * Stores a setup waiting for its first code, replacing an earlier unconfirmed one. False,
   * writing nothing, while the user has a confirmed one (or no such user).
   */
  savePendingTotp(userId: number, secretJwe: string, now: number): Promise<boolean>;
  /**
   * In one transaction: switches on the pending setup whose seed is still `secretJwe`, records
   * `step` as used, replaces the user's recovery codes with these and ends `ends` (the security
   * event's row; all sessions but `keepSessionIdHash`), returning what ended. Undefined, writing
   * nothing, when there is no such pending setup (confirmed already, replaced, or switched off).
   */
  confirmTotp(userId: number, secretJwe: string, step: number, now: number, recoveryCodeHashes: readonly string[], ends: Ends, keepSessionIdHash?: string): Promise<Ended | undefined>;
  /**
   * Records time step `step` as used if the authenticator app is on and no code of this step or a later one
   * was accepted (compare-and-set: of two concurrent uses of one code, one wins). False otherwise.
   */
  useTotpStep(userId: number, step: number): Promise<boolean>;
  /** Deletes the user's authenticator app (confirmed or pending) and recovery codes, and ends `ends` when there was one; whether there was one. */
  deleteTotp(userId: number, ends: Ends, now: number): Promise<boolean>;
  /** Replaces every recovery code of the user (used or not) with these hashes. */
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[], now: number): Promise<void>;
  /** Marks the user's unused recovery code with this hash used; false when there is none (a code works once). */
  useRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean>;
  /** How many of the user's recovery codes are unused. */
  countRecoveryCodes(userId: number): Promise<number>;
  /** The hashes of the user's unused recovery codes. */
  listRecoveryCodeHashes(userId: number): Promise<string[]>;
  /** Every recovery code (any user, used or not) whose hash does not start with `current`: hashed the old way. */
  listLegacyRecoveryCodes(current: string): Promise<{ userId: number; codeHash: string }[]>;
  /** Replaces the hash `from` of one of the user's recovery codes with `to`, if it is still `from` (compare-and-set). */
  rewriteRecoveryCodeHash(userId: number, from: string, to: string): Promise<boolean>;
  /**
   * In one transaction: deletes every passkey, the authenticator app (confirmed or pending) and
   * the recovery codes of the user (an operator's reset), and ends `ends`; how many passkeys went,
   * whether an app did, and how many sessions ended.
   */
  deleteFactors(userId: number, ends: Ends, now: number): Promise<{ passkeys: number; totp: boolean; endedSessions: number }>;
}
