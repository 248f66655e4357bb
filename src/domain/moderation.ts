/** Moderation: reports and the record of moderator actions: the records the domain, the store and the pages share. */
import type { UserName } from './users.js';

export type ReportReason = 'spam' | 'harassment' | 'hate' | 'sexual' | 'impersonation' | 'other';

export type ReportOutcome = 'no_action' | 'bio_hidden' | 'picture_removed' | 'suspended';

export type ModerationActionKind = 'suspend' | 'lift_suspension' | 'hide_bio' | 'remove_picture' | 'set_mod_level' | 'close_report' | 'remove_game';

/** A game a moderator removed, as it was then (the record outlives the game). */
interface RemovedGameRef {
  id: number;
  title: string;
}

export interface NewReport {
  reporterId: number;
  targetId: number;
  reason: ReportReason;
  text: string | null;
  createdAt: number;
}

/** A report with the names of its users. */
export interface ReportRecord {
  id: number;
  reporter: UserName;
  target: UserName;
  reason: ReportReason;
  text: string | null;
  createdAt: number;
  closedAt: number | null;
  /** Null while open, and when the moderator who closed it has deleted their account since. */
  closedBy: UserName | null;
  outcome: ReportOutcome | null;
}

/** One row of the record of moderator actions. */
export interface ModerationActionRecord {
  id: number;
  /** Null for the operator CLI. */
  moderator: UserName | null;
  target: UserName;
  action: ModerationActionKind;
  reason: string | null;
  until: number | null;
  modLevel: number | null;
  reportId: number | null;
  outcome: ReportOutcome | null;
  /** For remove_game, the game removed; null otherwise. */
  game: RemovedGameRef | null;
  createdAt: number;
}

export type NewModerationAction = Omit<ModerationActionRecord, 'id'>;

/** A user as the moderators' search lists them. */
export interface ModerationUserSummaryRecord extends UserName {
  modLevel: number;
  /** Suspended at `now` of the search. */
  suspended: boolean;
  openReports: number;
}
