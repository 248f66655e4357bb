/**
 * What proving an address by its mailbox does to an account whose address was never proven
 * (docs/account.md#proving-the-address): whoever made its ways in could not prove the address,
 * so a pre-hijacked account (Sudhodanan and Paverd, USENIX Security 2022) keeps nothing of its
 * maker's once the mailbox's owner shows up.
 */
import type { Ended } from '../../domain/security-events.js';

/** The ways in an event removed, as the audit trail and the notice name them. */
export function removedWaysIn(ended: Ended): { passkeys: number; upstreamIdentities: number; authenticatorApp: boolean } {
  return { passkeys: ended.passkeys, upstreamIdentities: ended.upstreamIdentities, authenticatorApp: ended.authenticatorApp };
}
