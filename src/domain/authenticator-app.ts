/** The authenticator app (TOTP): the records the domain, the store and the pages share. */
/** A user's authenticator app (TOTP): its seed only sealed, never in the clear. */
export interface TotpRecord {
  userId: number;
  /** The seed (base32), sealed: a compact JWE (src/security/sealed.ts). */
  secretJwe: string;
  /** When the first valid code switched it on; null while the setup waits for one. */
  confirmedAt: number | null;
  /** The 30-second time step of the last code accepted; a code of it or an earlier step is refused. */
  lastStep: number | null;
  createdAt: number;
}
