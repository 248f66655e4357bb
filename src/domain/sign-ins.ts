/** The sign-in history: the records the domain, the store and the pages share. */
/** One sign-in of a user, as the account page lists them. */
export interface SignInRecord {
  /** ms since epoch */
  at: number;
  ip: string;
  userAgent: string;
  /** The shown name of the upstream identity provider signed in through; null for any other sign-in. */
  upstream: string | null;
}
