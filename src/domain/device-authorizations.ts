/**
 * The device authorization grant (RFC 8628): the records the domain and the store share, and the
 * user code's alphabet. A device asks for a pair of codes; the person types the short one on
 * /device and approves or denies; the device polls the token endpoint with the long one.
 */

/** RFC 8628 6.1's suggestion: 20 consonants, no vowels (no words) and no look-alike characters. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

/** Letters in a user code: 20^8, about 2.6 * 10^10 codes. */
export const USER_CODE_LENGTH = 8;

/**
 * A user code as typed (any case, dashes, spaces) in the form it is stored and compared in:
 * upper case, every character outside the alphabet dropped. Undefined when what is left is not
 * a whole code, so a typo is refused before anything is looked up or counted as a guess.
 */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== USER_CODE_LENGTH) return undefined;
  for (const c of letters) if (!USER_CODE_ALPHABET.includes(c)) return undefined;
  return letters;
}

/** A normalized user code as people read it: `WDJB-MJHT`. */
export function formatUserCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

/** The person's decision, once made. */
export type DeviceDecision = 'approved' | 'denied';

export interface DeviceAuthorizationRecord {
  /** SHA-256 of the device code (the device polls with it). Also the family id of its refresh tokens. */
  deviceCodeHash: string;
  /** SHA-256 of the normalized user code (normalizeUserCode). Unique among stored ones. */
  userCodeHash: string;
  clientId: string;
  /** What the device asked for, already checked (offline_access only for an app with the refresh grant). */
  scopes: string[];
  /** Seconds the device must wait between polls; each slow_down adds 5. */
  intervalSeconds: number;
  /** The last poll, for slow_down; null before the first. */
  lastPolledAt: number | null;
  decision: DeviceDecision | null;
  /** Who decided (set with the decision). */
  userId: number | null;
  /** When that person signed in (the ID token's auth_time); set on approval. */
  authTime: number | null;
  /** How they signed in (the ID token's amr); set on approval. */
  amr: string[] | null;
  decidedAt: number | null;
  /** When the device got its tokens; an approved code is answered once. */
  usedAt: number | null;
  expiresAt: number;
  createdAt: number;
}

/** What the token endpoint's poll found, after pollDeviceAuthorization counted it. */
export type DevicePoll =
  | { outcome: 'unknown' }
  /** Polled sooner than the interval after the last poll: the interval is now 5 seconds longer. */
  | { outcome: 'slow_down'; record: DeviceAuthorizationRecord }
  | { outcome: 'polled'; record: DeviceAuthorizationRecord };

/** The approval's facts (the decision for 'approved'). */
export interface DeviceApproval {
  userId: number;
  authTime: number;
  amr: readonly string[];
}
