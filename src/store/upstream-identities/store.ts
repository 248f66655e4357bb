import type { Ends } from '../../domain/security-events.js';
import type { NewUpstreamIdentity, UpstreamIdentityRecord } from '../../domain/upstreams.js';

/** What unlinkUpstreamIdentity did: unlinked it, refused (the account's last way in), or found no such link of this user. */
export type UnlinkOutcome = 'unlinked' | 'last' | 'missing';

/** The accounts at upstream identity providers linked to accounts here (gone with their user or their upstream). */
export interface UpstreamIdentityStore {
  /** The link of this account at this upstream, to whichever user it is linked. */
  findUpstreamIdentity(upstreamSlug: string, subject: string): Promise<UpstreamIdentityRecord | undefined>;
  /** Links it; UniqueViolation('upstreamIdentity') when this (upstream, subject) is linked already, to anyone. */
  linkUpstreamIdentity(identity: NewUpstreamIdentity): Promise<UpstreamIdentityRecord>;
  /** A user's links, oldest first. */
  listUpstreamIdentities(userId: number): Promise<UpstreamIdentityRecord[]>;
  /** Records a sign-in through it (lastUsedAt). */
  touchUpstreamIdentity(id: number, at: number): Promise<void>;
  /**
   * Unlinks user `userId`'s link `id`, atomically: 'last' (nothing changed) when it is the
   * account's last way in (no password, no passkey, no other link), 'missing' when the user has
   * no such link. Of concurrent unlinks of an account's links, each sees what the others did. An
   * unlink ends `ends` in its transaction (all sessions but `keepSessionIdHash`).
   */
  unlinkUpstreamIdentity(userId: number, id: number, ends: Ends, now: number, keepSessionIdHash?: string): Promise<UnlinkOutcome>;
}
