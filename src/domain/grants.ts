/** Grants (remembered consent): the records the domain, the store and the pages share. */
/** An app a user let use their account (remembered consent). */
export interface GrantRecord {
  userId: number;
  clientId: string;
  scopes: string[];
  /** When the user first granted the app anything. */
  createdAt: number;
  /** When the app last got a code for the user (with or without the consent page). */
  lastUsedAt: number;
}

/** A grant with what the account page shows of its app. */
export interface GrantWithApp extends GrantRecord {
  appName: string;
  ownerId: number;
  ownerName: string;
}
