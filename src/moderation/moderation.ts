/**
 * Moderation (docs/moderation.md): users report profiles; moderators (modLevel >= 1) act on users
 * whose modLevel is below their own (suspend, lift a suspension, hide a bio, remove a picture or
 * a game, set a level, close a report); the operator CLI acts as no moderator and on anyone. Every
 * action is a row of the record (Store.moderation.listModerationActions) and an audit line.
 */
import type { components } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import { Conflict, Forbidden, InvalidInput, NotFound } from '../domain/errors.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import { removePicture as removePictureFiles, type PictureStore } from '../pictures/pictures.js';
import { accountKey, type Limiter } from '../security/rate-limit.js';
import { UniqueViolation } from '../domain/errors.js';
import type { ModerationActionKind, ModerationActionRecord, NewModerationAction, ReportOutcome, ReportReason, ReportRecord } from '../domain/moderation.js';
import type { UserName, UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';
import { toPublicUser } from '../accounts/users.js';
import { activeSuspension, parseUntil } from '../accounts/suspensions.js';

type Schemas = components['schemas'];
type ReportView = Schemas['Report'];
type ModerationActionView = Schemas['ModerationAction'];
type AccountModerationActionView = Schemas['AccountModerationAction'];
type ModerationUserView = Schemas['ModerationUser'];
type SuspensionView = Schemas['Suspension'];
type BioRemovalView = Schemas['BioRemoval'];

const NOT_A_MODERATOR = 'Only moderators may do this';
const OUTRANKED = 'You may act only on users whose modLevel is below yours';
const USER_NOT_FOUND = 'User not found';
const GAME_NOT_FOUND = 'Game not found';
const MAX_REASON = 500;
/** How many users the moderators' search lists at most. */
const FOUND_USERS = 20;

export interface ModerationDeps {
  store: Store;
  now: () => number;
  audit: Audit;
}

/** Who acts: a moderator, or the operator CLI (null), which may act on anyone. */
type Actor = UserRecord | null;

// Who may do what

function requireModerator(actor: UserRecord): void {
  if (actor.modLevel < 1) throw new Forbidden(NOT_A_MODERATOR);
}

/** The target of an action: 403 for a non-moderator before anything is read, 404, or 403 when not outranked. */
async function targetOf(deps: ModerationDeps, actor: Actor, targetId: number): Promise<UserRecord> {
  if (actor) requireModerator(actor);
  const target = await deps.store.users.getUser(targetId);
  if (!target) throw new NotFound(USER_NOT_FOUND);
  if (actor && target.modLevel >= actor.modLevel) throw new Forbidden(OUTRANKED);
  return target;
}

function checkReason(reason: string): string {
  if (reason.length < 1 || reason.length > MAX_REASON) throw new InvalidInput(`reason must be 1-${MAX_REASON} characters`);
  if (reason.includes('\u0000')) throw new InvalidInput('reason must not contain NUL characters');
  return reason;
}

const nameOf = (u: UserName): UserName => ({ id: u.id, name: u.name });

function newAction(deps: ModerationDeps, actor: Actor, target: UserName, action: ModerationActionKind, fields: Partial<NewModerationAction> = {}): NewModerationAction {
  return {
    moderator: actor && nameOf(actor),
    target: nameOf(target),
    action,
    reason: null,
    until: null,
    modLevel: null,
    reportId: null,
    outcome: null,
    game: null,
    createdAt: deps.now(),
    ...fields,
  };
}

function audited(deps: ModerationDeps, action: NewModerationAction): void {
  deps.audit('moderation_action', {
    moderatorId: action.moderator?.id ?? null,
    userId: action.target.id,
    action: action.action,
    ...(action.reportId === null ? {} : { reportId: action.reportId }),
    ...(action.game === null ? {} : { gameId: action.game.id }),
  });
}

// Views

function withoutNulls<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]: Exclude<T[K], null> };
}

function reportView(r: ReportRecord): ReportView {
  return withoutNulls({
    id: r.id,
    target: r.target,
    reporter: r.reporter,
    reason: r.reason,
    text: r.text,
    created_at: r.createdAt,
    closed_at: r.closedAt,
    closed_by: r.closedBy,
    outcome: r.outcome,
  });
}

function actionView(a: ModerationActionRecord): ModerationActionView {
  return withoutNulls({
    id: a.id,
    moderator: a.moderator,
    target: a.target,
    action: a.action,
    reason: a.reason,
    until: a.until,
    mod_level: a.modLevel,
    report_id: a.reportId,
    outcome: a.outcome,
    game: a.game,
    created_at: a.createdAt,
  });
}

/** An action as its target's data export gives it: no moderator, no report. */
function accountActionView(a: ModerationActionRecord): AccountModerationActionView {
  return withoutNulls({ action: a.action, reason: a.reason, until: a.until, mod_level: a.modLevel, outcome: a.outcome, game: a.game, created_at: a.createdAt });
}

function suspensionView(user: UserRecord, now: number): SuspensionView | undefined {
  const s = activeSuspension(user, now);
  return s && withoutNulls({ reason: s.reason, since: s.since, until: s.until });
}

export function bioRemovalView(user: UserRecord): BioRemovalView | undefined {
  return user.bioRemoved ? { reason: user.bioRemoved.reason, removed_at: user.bioRemoved.removedAt } : undefined;
}

/** What the account's own export says of moderation: the actions on it, oldest first, and what is in force. */
export async function accountModeration(
  deps: { store: Store; now: () => number },
  user: UserRecord,
): Promise<Pick<Schemas['AccountExport'], 'moderation_actions' | 'bio_removed' | 'suspension'>> {
  const actions = await deps.store.moderation.listModerationActions({ targetId: user.id });
  const out: Pick<Schemas['AccountExport'], 'moderation_actions' | 'bio_removed' | 'suspension'> = {
    moderation_actions: actions.reverse().map(accountActionView),
  };
  const bio = bioRemovalView(user);
  if (bio) out.bio_removed = bio;
  const suspension = suspensionView(user, deps.now());
  if (suspension) out.suspension = suspension;
  return out;
}

async function moderationUserView(deps: ModerationDeps, actor: Actor, target: UserRecord): Promise<ModerationUserView> {
  const [reports, actions] = await Promise.all([deps.store.moderation.listOpenReports(target.id), deps.store.moderation.listModerationActions({ targetId: target.id })]);
  const view: ModerationUserView = {
    user: toPublicUser(target),
    created_at: target.createdAt,
    can_act: actor === null || target.modLevel < actor.modLevel,
    open_reports: reports.map(reportView),
    actions: actions.map(actionView),
  };
  const suspension = suspensionView(target, deps.now());
  if (suspension) view.suspension = suspension;
  const bio = bioRemovalView(target);
  if (bio) view.bio_removed = bio;
  return view;
}

/** The user after an action, as the moderator sees them. */
async function afterAction(deps: ModerationDeps, actor: Actor, targetId: number): Promise<ModerationUserView> {
  const target = await deps.store.users.getUser(targetId);
  if (!target) throw new NotFound(USER_NOT_FOUND);
  return moderationUserView(deps, actor, target);
}

// Reading

export async function getModerationUser(deps: ModerationDeps, actor: UserRecord, targetId: number): Promise<ModerationUserView> {
  requireModerator(actor);
  const target = await deps.store.users.getUser(targetId);
  if (!target) throw new NotFound(USER_NOT_FOUND);
  return moderationUserView(deps, actor, target);
}

export async function findModerationUsers(deps: ModerationDeps, actor: UserRecord, q: string): Promise<Schemas['ModerationUserSummary'][]> {
  requireModerator(actor);
  const query = /^\d{1,10}$/.test(q) ? { id: Number(q) } : { prefix: q };
  const found = await deps.store.moderation.findUsers(query, deps.now(), FOUND_USERS);
  return found.map((u) => ({ id: u.id, name: u.name, mod_level: u.modLevel, suspended: u.suspended, open_reports: u.openReports }));
}

/** Moderator actions, newest first. `actor` null: the operator CLI. */
export async function listModerationActions(deps: ModerationDeps, actor: Actor, filter: { targetId?: number; limit?: number }): Promise<ModerationActionView[]> {
  if (actor) requireModerator(actor);
  const limit = filter.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new InvalidInput('limit must be between 1 and 200');
  return (await deps.store.moderation.listModerationActions({ targetId: filter.targetId, limit })).map(actionView);
}

/** Every open report, grouped by user: the longest-waiting user first, each user's reports oldest first. */
export async function reportQueue(deps: ModerationDeps, actor: Actor): Promise<Schemas['ReportQueue']> {
  if (actor) requireModerator(actor);
  const open = await deps.store.moderation.listOpenReports();
  const targets = new Map<number, ReportRecord[]>();
  // Oldest first overall, so each group's first report is its oldest and Map order is the queue's.
  for (const r of open) {
    const group = targets.get(r.target.id);
    if (group) group.push(r);
    else targets.set(r.target.id, [r]);
  }
  const levels = new Map<number, number>();
  await Promise.all(
    [...targets.keys()].map(async (id) => {
      levels.set(id, (await deps.store.users.getUser(id))?.modLevel ?? 0);
    }),
  );
  return {
    targets: [...targets.values()].map((reports) => ({
      user: reports[0]!.target,
      mod_level: levels.get(reports[0]!.target.id) ?? 0,
      first_reported_at: reports[0]!.createdAt,
      reports: reports.map(reportView),
    })),
  };
}

// Reports

export async function reportUser(
  deps: ModerationDeps & { limit: Limiter },
  reporter: UserRecord,
  targetId: number,
  input: { reason: ReportReason; text?: string },
): Promise<Schemas['ReportReceipt']> {
  if (targetId === reporter.id) throw new InvalidInput('You cannot report yourself');
  if (input.text !== undefined && input.text.length > MAX_REASON) throw new InvalidInput(`text must be at most ${MAX_REASON} characters`);
  if (input.text?.includes('\u0000')) throw new InvalidInput('text must not contain NUL characters');
  const target = await deps.store.users.getPublicUser(targetId);
  if (!target) throw new NotFound(USER_NOT_FOUND);
  await deps.limit.consume(accountKey(reporter.id));
  const text = input.text === undefined || input.text === '' ? null : input.text;
  try {
    const report = await deps.store.moderation.createReport({ reporterId: reporter.id, targetId, reason: input.reason, text, createdAt: deps.now() });
    return withoutNulls({ id: report.id, reason: report.reason, text: report.text, created_at: report.createdAt });
  } catch (err) {
    if (err instanceof UniqueViolation) throw new Conflict('You already reported this user; a moderator will look at it');
    throw err;
  }
}

export async function closeReport(deps: ModerationDeps, actor: UserRecord, reportId: number, outcome: ReportOutcome): Promise<ReportView> {
  requireModerator(actor);
  const report = await deps.store.moderation.getReport(reportId);
  if (!report) throw new NotFound('Report not found');
  const target = await deps.store.users.getUser(report.target.id);
  // A report goes with its target: only a deletion racing this gets here.
  if (!target) throw new NotFound('Report not found');
  if (target.modLevel >= actor.modLevel) throw new Forbidden(OUTRANKED);
  if (report.closedAt !== null) throw new Conflict('This report is closed already');
  const action = newAction(deps, actor, target, 'close_report', { reportId, outcome });
  if (!(await deps.store.moderation.closeReport(reportId, actor.id, outcome, action))) throw new Conflict('This report is closed already');
  audited(deps, action);
  return reportView((await deps.store.moderation.getReport(reportId))!);
}

// Actions on accounts. `actor` null: the operator CLI.

export async function suspendUser(
  deps: ModerationDeps,
  actor: Actor,
  targetId: number,
  input: { reason: string; until?: number | string },
): Promise<ModerationUserView> {
  const target = await targetOf(deps, actor, targetId);
  const reason = checkReason(input.reason);
  const now = deps.now();
  const until = parseUntil(input.until, now);
  const action = newAction(deps, actor, target, 'suspend', { reason, until, createdAt: now });
  if (!(await deps.store.moderation.suspendUser(target.id, { reason, since: now, until }, action, SECURITY_EVENTS.suspended))) throw new NotFound(USER_NOT_FOUND);
  audited(deps, action);
  return afterAction(deps, actor, target.id);
}

export async function liftSuspension(deps: ModerationDeps, actor: Actor, targetId: number): Promise<ModerationUserView> {
  const target = await targetOf(deps, actor, targetId);
  const action = newAction(deps, actor, target, 'lift_suspension');
  if (!(await deps.store.moderation.liftSuspension(target.id, action.createdAt, action))) throw new Conflict('This account is not suspended');
  audited(deps, action);
  return afterAction(deps, actor, target.id);
}

export async function hideBio(deps: ModerationDeps, actor: Actor, targetId: number, input: { reason: string }): Promise<ModerationUserView> {
  const target = await targetOf(deps, actor, targetId);
  const action = newAction(deps, actor, target, 'hide_bio', { reason: checkReason(input.reason) });
  if (!(await deps.store.moderation.hideBio(target.id, action))) throw new Conflict('This user has no bio');
  audited(deps, action);
  return afterAction(deps, actor, target.id);
}

/** Removes the picture as its owner would (src/pictures/pictures.ts): the old files go, the defaults answer. */
export async function removePicture(
  deps: ModerationDeps & { pictures: PictureStore },
  actor: Actor,
  targetId: number,
  input: { reason: string },
): Promise<ModerationUserView> {
  const target = await targetOf(deps, actor, targetId);
  const reason = checkReason(input.reason);
  if (target.pfpTimestamp === null) throw new Conflict('This user has no picture');
  await removePictureFiles(deps, target.id);
  const action = newAction(deps, actor, target, 'remove_picture', { reason });
  await deps.store.moderation.addModerationAction(action);
  audited(deps, action);
  return afterAction(deps, actor, target.id);
}

/** Deletes a game as its author would; recorded on the author (below the moderator) with the game's id and title. */
export async function removeGame(deps: ModerationDeps, actor: Actor, gameId: number, input: { reason: string }): Promise<ModerationUserView> {
  if (actor) requireModerator(actor);
  const game = await deps.store.games.getGame(gameId);
  if (!game) throw new NotFound(GAME_NOT_FOUND);
  const author = await targetOf(deps, actor, game.authorId);
  const action = newAction(deps, actor, author, 'remove_game', { reason: checkReason(input.reason), game: { id: game.id, title: game.title } });
  if (!(await deps.store.moderation.removeGame(game.id, action))) throw new NotFound(GAME_NOT_FOUND);
  audited(deps, action);
  return afterAction(deps, actor, author.id);
}

/**
 * Sets a modLevel. A moderator needs modLevel >= 2, must outrank the user, and may give at most
 * their own level minus one; the operator CLI (actor null) sets any level.
 */
export async function setModLevel(
  deps: ModerationDeps,
  actor: Actor,
  targetId: number,
  input: { modLevel: number; reason?: string },
): Promise<ModerationUserView> {
  if (actor) {
    requireModerator(actor);
    if (actor.modLevel < 2) throw new Forbidden('Setting a modLevel needs modLevel 2 or more');
  }
  if (!Number.isInteger(input.modLevel) || input.modLevel < 0 || input.modLevel > 3) throw new InvalidInput('modLevel must be one of 0, 1, 2, 3');
  const target = await targetOf(deps, actor, targetId);
  if (actor && input.modLevel >= actor.modLevel) throw new Forbidden('You may give a modLevel only below yours');
  const reason = input.reason === undefined ? null : checkReason(input.reason);
  const action = newAction(deps, actor, target, 'set_mod_level', { reason, modLevel: input.modLevel });
  if (!(await deps.store.moderation.setModLevel(target.id, input.modLevel, action))) throw new NotFound(USER_NOT_FOUND);
  audited(deps, action);
  return afterAction(deps, actor, target.id);
}
