import type { Ends } from '../../domain/security-events.js';
import type { NewPasskey, PasskeyRecord, PasskeyUse } from '../../domain/passkeys.js';

/** Each user's passkeys (WebAuthn credentials). */
export interface PasskeyStore {
  /** Throws UniqueViolation('credential') when the credential id is registered already (to anyone). */
  createPasskey(passkey: NewPasskey): Promise<PasskeyRecord>;
  /** A user's passkeys, oldest first. */
  listPasskeys(userId: number): Promise<PasskeyRecord[]>;
  /** A passkey by its credential id (whoever's it is). */
  getPasskeyByCredentialId(credentialId: string): Promise<PasskeyRecord | undefined>;
  /** Renames one of the user's passkeys; undefined when the user has no passkey with this id. */
  renamePasskey(userId: number, id: number, name: string): Promise<PasskeyRecord | undefined>;
  /**
   * Deletes one of the user's passkeys: 'missing' when the user has no passkey with this id,
   * 'last' (and nothing deleted) when it is the account's last way in: no password, no other
   * passkey, no linked upstream identity. The user's row is locked first, as an unlink locks it,
   * so a removal and an unlink racing cannot both take the last two ways in. A deletion ends
   * `ends` in its transaction (all sessions but `keepSessionIdHash`).
   */
  deletePasskey(userId: number, id: number, ends: Ends, now: number, keepSessionIdHash?: string): Promise<'deleted' | 'last' | 'missing'>;
  /**
   * Records a sign-in with the passkey: its counter, backup flags and last use, only if the
   * counter still allows it (WebAuthn's rule: the new counter is above the stored one, or both are
   * 0), checked in the same statement so two uses cannot both pass. Returns whether it was written.
   */
  recordPasskeyUse(id: number, use: PasskeyUse, now: number): Promise<boolean>;
}
