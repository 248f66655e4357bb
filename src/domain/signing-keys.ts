/** ID token signing keys: the records the domain, the store and the pages share. */
/** An ID token signing key (src/oauth/keys.ts): its public half as a JWK, its private half only encrypted. */
export interface SigningKeyRecord {
  kid: string;
  alg: 'RS256';
  /** The public JWK, as JSON text. */
  publicJwk: string;
  /** The private JWK, encrypted: a compact JWE. */
  privateJwe: string;
  createdAt: number;
  /** When a newer key took over signing; null while this one signs. */
  retiredAt: number | null;
}
