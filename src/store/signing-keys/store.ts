import type { SigningKeyRecord } from '../../domain/signing-keys.js';

/** The ID token signing keys every instance shares. */
export interface SigningKeyStore {
  /** Every key: those still signing first, then the retired; newest first within each. */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /**
   * Adds a key; with `retireOthersAt`, in the same transaction every other key still signing is
   * retired at that instant (a rotation).
   */
  addSigningKey(key: SigningKeyRecord, retireOthersAt: number | null): Promise<void>;
  /** Retires a key that still signs (one no secret can decrypt any more); false if none was. */
  retireSigningKey(kid: string, at: number): Promise<boolean>;
  /** Deletes the keys retired at or before `retiredBy`; returns their kids. */
  dropSigningKeys(retiredBy: number): Promise<string[]>;
}
