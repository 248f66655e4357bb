/** Passkeys (WebAuthn credentials): the records the domain, the store and the pages share. */
/** A passkey: a WebAuthn credential a user registered (src/accounts/passkeys.ts). */
export interface PasskeyRecord {
  /** The row's id: the passkey's address in the account API (not the credential id). */
  id: number;
  userId: number;
  /** The credential id, base64url; unique across users. */
  credentialId: string;
  /** The credential's COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen; 0 for an authenticator that keeps none. */
  counter: number;
  /** The transports the browser reported (`internal`, `hybrid`, `usb`, ...). */
  transports: string[];
  /** WebAuthn's backup eligibility: a `multiDevice` credential may be synced (a synced passkey). */
  deviceType: 'singleDevice' | 'multiDevice';
  /** Whether the credential was backed up (synced) when last seen. */
  backedUp: boolean;
  /** The name the person gave it (1 to 64 characters). */
  name: string;
  createdAt: number;
  /** When it last signed the person in; null until then. */
  lastUsedAt: number | null;
}

export type NewPasskey = Omit<PasskeyRecord, 'id' | 'lastUsedAt'>;

/** What a sign-in with a passkey saw of it (the counter and the backup flags). */
export interface PasskeyUse {
  counter: number;
  deviceType: PasskeyRecord['deviceType'];
  backedUp: boolean;
}
