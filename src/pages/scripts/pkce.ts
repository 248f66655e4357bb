/**
 * A PKCE pair made in the page (RFC 7636): for the apps page's sign-in link of a public app, which
 * the service refuses without a code_challenge. Web Crypto's `crypto.subtle` exists only in secure
 * contexts (https, or localhost): elsewhere there is no pair.
 */
export interface PkcePair {
  /** 43 base64url characters (32 random bytes): what the exchange sends as code_verifier. */
  verifier: string;
  /** base64url(SHA-256(verifier)): the link's code_challenge, with code_challenge_method=S256. */
  challenge: string;
}

const base64url = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export async function pkcePair(): Promise<PkcePair | undefined> {
  // Typed as always there, but absent outside secure contexts.
  if (!(crypto.subtle as SubtleCrypto | undefined)) return undefined;
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}
