import type { Ends } from '../../domain/security-events.js';
import type { ModerationActionRecord, ModerationUserSummaryRecord, NewModerationAction, NewReport, ReportOutcome, ReportRecord } from '../../domain/moderation.js';
import type { SuspensionRecord } from '../../domain/users.js';

/**
 * Moderation (docs/moderation.md): reports, what moderators do to accounts, and the record of it.
 * Every change to an account is written in one transaction with its row of the record.
 */
export interface ModerationStore {
  /**
   * In one transaction: sets the user's suspension (replacing one in force), signs every session
   * of the user out (keeping only whose it was, for the page that says why), ends `ends` (the
   * security event's row), and records `action`. False, writing nothing, when there is no such user.
   */
  suspendUser(userId: number, suspension: SuspensionRecord, action: NewModerationAction, ends: Ends): Promise<boolean>;
  /** Clears a suspension in force at `now` and records `action`; false (nothing written) when none is. */
  liftSuspension(userId: number, now: number, action: NewModerationAction): Promise<boolean>;
  /** Empties a bio that is not empty, keeps why and when, and records `action`; false otherwise. */
  hideBio(userId: number, action: NewModerationAction): Promise<boolean>;
  /** Sets the user's modLevel and records `action`; false when there is no such user. */
  setModLevel(userId: number, modLevel: number, action: NewModerationAction): Promise<boolean>;
  /**
   * Deletes the game and records `action` (remove_game) in one transaction; false, writing
   * nothing, when there is no such game.
   */
  removeGame(gameId: number, action: NewModerationAction): Promise<boolean>;
  /** Records an action whose change was made elsewhere (a picture removal). */
  addModerationAction(action: NewModerationAction): Promise<ModerationActionRecord>;
  /** The record, newest first: every action, or those on `targetId`; at most `limit` when given. */
  listModerationActions(filter: { targetId?: number; limit?: number }): Promise<ModerationActionRecord[]>;
  /** Throws UniqueViolation('report') while the reporter's earlier report on the user is open. */
  createReport(report: NewReport): Promise<ReportRecord>;
  getReport(id: number): Promise<ReportRecord | undefined>;
  /** Open reports, oldest first: all of them, or those on `targetId`. */
  listOpenReports(targetId?: number): Promise<ReportRecord[]>;
  /**
   * Closes an open report and records `action` (close_report) in one transaction; false, writing
   * nothing, when it is closed already (or there is no such report).
   */
  closeReport(id: number, closedBy: number, outcome: ReportOutcome, action: NewModerationAction): Promise<boolean>;
  /**
   * Users whose name starts with `prefix` (any case; `_` and `%` are plain characters), by name,
   * at most `limit`; or, with `id`, that user. Each with their open reports and whether suspended at `now`.
   */
  findUsers(query: { id: number } | { prefix: string }, now: number, limit: number): Promise<ModerationUserSummaryRecord[]>;
}
