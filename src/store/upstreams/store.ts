import type { UpstreamRecord } from '../../domain/upstreams.js';

/** The upstream identity providers every instance shares, by slug. */
export interface UpstreamStore {
  /** Stores a new one; UniqueViolation('slug') when its slug is taken. */
  addUpstream(record: UpstreamRecord): Promise<void>;
  /** Every one, oldest first. */
  listUpstreams(): Promise<UpstreamRecord[]>;
  getUpstream(slug: string): Promise<UpstreamRecord | undefined>;
  /** Turns its sign-in on or off; false when no upstream has this slug. */
  setUpstreamEnabled(slug: string, enabled: boolean): Promise<boolean>;
  /** Whether its `amr` `mfa` counts here; false when no upstream has this slug. */
  setUpstreamTrustMfa(slug: string, trustMfa: boolean): Promise<boolean>;
  /** Deletes it; false when no upstream has this slug. */
  removeUpstream(slug: string): Promise<boolean>;
}
