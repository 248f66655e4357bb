/**
 * How sign-in attempts are counted (docs/decisions.md#rate-limits): every attempt of any kind (a
 * password, a passkey, a second step's code) against the client address first, and each guess
 * against the account before it is checked (src/security/rate-limit.ts attempt, by accountKey).
 * A refusal for too many attempts is audited as `sign_in_failed` with the reason `rate_limited`.
 */
import type { Audit } from '../audit.js';
import { RateLimited } from '../domain/errors.js';
import type { Limits } from '../security/rate-limit.js';

/** Counts one sign-in attempt from `ip` (429 once over the limit); `userId`: whose sign-in it is, when known. */
export async function countSignInAttempt(deps: { limits: Pick<Limits, 'signInIp'>; audit?: Audit | undefined }, ip: string, userId?: number): Promise<void> {
  try {
    await deps.limits.signInIp.consume(ip);
  } catch (err) {
    if (err instanceof RateLimited) deps.audit?.('sign_in_failed', userId === undefined ? { ip, reason: 'rate_limited' } : { userId, ip, reason: 'rate_limited' });
    throw err;
  }
}
