import type { Ends } from '../../domain/security-events.js';
import { UniqueViolation } from '../../domain/errors.js';
import type { ModerationActionRecord, ModerationUserSummaryRecord, NewModerationAction, NewReport, ReportOutcome, ReportRecord } from '../../domain/moderation.js';
import type { SuspensionRecord } from '../../domain/users.js';
import { moderationActionRow, toModerationAction, toReport } from './rows.js';
import { Queries } from '../queries.js';
import { endArtifacts } from '../security-events/ends.js';
import { type Row, isRowId, isRowKey, num, uniqueField } from '../rows.js';

/** ModerationStore (store.ts) in knex: store.moderation in KnexStore (src/store/knex-store.ts), on both databases. */
export class ModerationQueries extends Queries {
  async suspendUser(userId: number, suspension: SuspensionRecord, action: NewModerationAction, ends: Ends): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('users')
        .where({ id: userId })
        .update({ suspension_reason: suspension.reason, suspended_at: suspension.since, suspended_until: suspension.until });
      if (changed !== 1) return false;
      const now = suspension.since;
      // Each session of the account is signed out, keeping only whose it was: its next page says
      // the account is suspended and why (the cookie proves it is that person's own browser).
      await trx('sessions')
        .where({ user_id: userId })
        .update({ data: JSON.stringify({ suspendedUserId: userId }), user_id: null, public_id: null, started_at: null, last_seen_at: null, user_agent: null, sign_in_ip: null });
      await endArtifacts(trx, { userId }, ends, now);
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async liftSuspension(userId: number, now: number, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('users')
        .where({ id: userId })
        .whereNotNull('suspended_at')
        .whereRaw('(suspended_until is null or suspended_until > ?)', [now])
        .update({ suspension_reason: null, suspended_at: null, suspended_until: null });
      if (changed !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async hideBio(userId: number, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('users')
        .where({ id: userId })
        .whereNot({ bio: '' })
        .update({ bio: '', bio_removed_reason: action.reason ?? '', bio_removed_at: action.createdAt });
      if (changed !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async setModLevel(userId: number, modLevel: number, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      if ((await trx('users').where({ id: userId }).update({ mod_level: modLevel })) !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async removeGame(gameId: number, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(gameId)) return false;
    return this.knex.transaction(async (trx) => {
      if ((await trx('games').where({ id: gameId }).delete()) !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async addModerationAction(action: NewModerationAction): Promise<ModerationActionRecord> {
    const [row] = await this.knex('moderation_actions').insert(moderationActionRow(action)).returning<Row[]>('id');
    return { id: num(row!.id), ...action };
  }

  async listModerationActions(filter: { targetId?: number; limit?: number }): Promise<ModerationActionRecord[]> {
    const query = this.knex('moderation_actions').orderBy('id', 'desc');
    if (filter.targetId !== undefined) {
      if (!isRowId(filter.targetId)) return [];
      query.where({ target_id: filter.targetId });
    }
    if (filter.limit !== undefined) query.limit(filter.limit);
    return ((await query) as Row[]).map(toModerationAction);
  }

  private reportsQuery() {
    return this.knex('reports as r')
      .join('users as rep', 'rep.id', 'r.reporter_id')
      .join('users as tgt', 'tgt.id', 'r.target_id')
      .leftJoin('users as mod', 'mod.id', 'r.closed_by')
      .select('r.*', 'rep.name as reporter_name', 'tgt.name as target_name', 'mod.name as closed_by_name');
  }

  async createReport(report: NewReport): Promise<ReportRecord> {
    try {
      const [row] = await this.knex('reports')
        .insert({
          reporter_id: report.reporterId,
          target_id: report.targetId,
          reason: report.reason,
          text: report.text,
          created_at: report.createdAt,
        })
        .returning<Row[]>('id');
      return (await this.getReport(num(row!.id)))!;
    } catch (err) {
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }

  async getReport(id: number): Promise<ReportRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = (await this.reportsQuery().where('r.id', id).first()) as Row | undefined;
    return row && toReport(row);
  }

  async listOpenReports(targetId?: number): Promise<ReportRecord[]> {
    const query = this.reportsQuery().whereNull('r.closed_at');
    if (targetId !== undefined) {
      if (!isRowId(targetId)) return [];
      query.where('r.target_id', targetId);
    }
    const rows = (await query.orderBy([{ column: 'r.created_at' }, { column: 'r.id' }])) as Row[];
    return rows.map(toReport);
  }

  async closeReport(id: number, closedBy: number, outcome: ReportOutcome, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(id)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('reports')
        .where({ id })
        .whereNull('closed_at')
        .update({ closed_at: action.createdAt, closed_by: closedBy, outcome });
      if (changed !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async findUsers(query: { id: number } | { prefix: string }, now: number, limit: number): Promise<ModerationUserSummaryRecord[]> {
    const openReports = this.knex('reports').count('*').whereNull('closed_at').whereRaw('reports.target_id = users.id').as('open_reports');
    const q = this.knex('users').select('id', 'name', 'mod_level', 'suspended_at', 'suspended_until', openReports);
    if ('id' in query) {
      if (!isRowId(query.id)) return [];
      q.where({ id: query.id });
    } else {
      if (!isRowKey(query.prefix)) return [];
      const escaped = query.prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
      q.whereRaw("name_key like ? escape '\\'", [`${escaped}%`]);
    }
    const rows = (await q.orderBy('name_key').limit(limit)) as Row[];
    return rows.map((r) => ({
      id: num(r.id),
      name: String(r.name),
      modLevel: num(r.mod_level),
      suspended: r.suspended_at !== null && (r.suspended_until === null || num(r.suspended_until) > now),
      openReports: num(r.open_reports),
    }));
  }
}
