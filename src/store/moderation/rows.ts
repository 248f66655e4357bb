/** Rows of the moderation tables as records (src/domain/moderation.ts), and records as rows. */
import type { ModerationActionKind, ModerationActionRecord, NewModerationAction, ReportOutcome, ReportReason, ReportRecord } from '../../domain/moderation.js';
import { type Row, num, numOrNull } from '../rows.js';

/** A reports row with its users' names (`reporter_name`, `target_name`, `closed_by_name`). */
export function toReport(r: Row): ReportRecord {
  const closedBy = numOrNull(r.closed_by);
  const closedByName = typeof r.closed_by_name === 'string' ? r.closed_by_name : null;
  return {
    id: num(r.id),
    reporter: { id: num(r.reporter_id), name: String(r.reporter_name) },
    target: { id: num(r.target_id), name: String(r.target_name) },
    reason: String(r.reason) as ReportReason,
    text: (r.text as string | null) ?? null,
    createdAt: num(r.created_at),
    closedAt: numOrNull(r.closed_at),
    closedBy: closedBy === null || closedByName === null ? null : { id: closedBy, name: closedByName },
    outcome: (r.outcome as ReportOutcome | null) ?? null,
  };
}

export function moderationActionRow(a: NewModerationAction): Row {
  return {
    moderator_id: a.moderator?.id ?? null,
    moderator_name: a.moderator?.name ?? null,
    target_id: a.target.id,
    target_name: a.target.name,
    action: a.action,
    reason: a.reason,
    until: a.until,
    mod_level: a.modLevel,
    report_id: a.reportId,
    outcome: a.outcome,
    game_id: a.game?.id ?? null,
    game_title: a.game?.title ?? null,
    created_at: a.createdAt,
  };
}

export function toModerationAction(r: Row): ModerationActionRecord {
  const moderatorId = numOrNull(r.moderator_id);
  const gameId = numOrNull(r.game_id);
  return {
    id: num(r.id),
    moderator: moderatorId === null ? null : { id: moderatorId, name: String(r.moderator_name) },
    target: { id: num(r.target_id), name: String(r.target_name) },
    action: String(r.action) as ModerationActionKind,
    reason: (r.reason as string | null) ?? null,
    until: numOrNull(r.until),
    modLevel: numOrNull(r.mod_level),
    reportId: numOrNull(r.report_id),
    outcome: (r.outcome as ReportOutcome | null) ?? null,
    game: gameId === null ? null : { id: gameId, title: String(r.game_title) },
    createdAt: num(r.created_at),
  };
}
