/** The moderation operations (tag `moderation`, docs/moderation.md): thin over src/moderation/moderation.ts. */
import type Koa from 'koa';
import {
  closeReport as close,
  findModerationUsers as find,
  getModerationUser as getOne,
  hideBio as hide,
  liftSuspension as lift,
  listModerationActions as listActions,
  removePicture as removePic,
  reportQueue,
  reportUser as report,
  setModLevel as setLevel,
  suspendUser as suspend,
  type ModerationUserView,
} from '../moderation/moderation.js';
import type { AppDeps, Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

function sendModerationUser(ctx: Koa.Context, body: ModerationUserView): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

const moderationDeps = (deps: AppDeps) => ({ store: deps.store, now: deps.now, audit: deps.audit });

export const reportUser: Handler<'reportUser'> = async (input, ctx, deps) => {
  const body: JsonBody<'reportUser', 201> = await report({ ...moderationDeps(deps), limit: deps.limits.reportUser }, signedInUser(ctx), Number(input.path.id), input.body);
  ctx.status = 201;
  ctx.body = body;
};

export const listReports: Handler<'listReports'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listReports', 200> = await reportQueue(moderationDeps(deps), signedInUser(ctx));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};

export const closeReport: Handler<'closeReport'> = async (input, ctx, deps) => {
  const body: JsonBody<'closeReport', 200> = await close(moderationDeps(deps), signedInUser(ctx), Number(input.path.reportId), input.body.outcome);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};

export const findModerationUsers: Handler<'findModerationUsers'> = async (input, ctx, deps) => {
  const body: JsonBody<'findModerationUsers', 200> = { users: await find(moderationDeps(deps), signedInUser(ctx), input.query.q) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};

export const getModerationUser: Handler<'getModerationUser'> = async (input, ctx, deps) => {
  sendModerationUser(ctx, await getOne(moderationDeps(deps), signedInUser(ctx), Number(input.path.id)));
};

export const suspendUser: Handler<'suspendUser'> = async (input, ctx, deps) => {
  sendModerationUser(ctx, await suspend(moderationDeps(deps), signedInUser(ctx), Number(input.path.id), input.body));
};

export const liftSuspension: Handler<'liftSuspension'> = async (input, ctx, deps) => {
  sendModerationUser(ctx, await lift(moderationDeps(deps), signedInUser(ctx), Number(input.path.id)));
};

export const hideBio: Handler<'hideBio'> = async (input, ctx, deps) => {
  sendModerationUser(ctx, await hide(moderationDeps(deps), signedInUser(ctx), Number(input.path.id), input.body));
};

export const removePicture: Handler<'removePicture'> = async (input, ctx, deps) => {
  sendModerationUser(ctx, await removePic({ ...moderationDeps(deps), pictures: deps.pictures }, signedInUser(ctx), Number(input.path.id), input.body));
};

export const setModLevel: Handler<'setModLevel'> = async (input, ctx, deps) => {
  sendModerationUser(ctx, await setLevel(moderationDeps(deps), signedInUser(ctx), Number(input.path.id), input.body));
};

export const listModerationActions: Handler<'listModerationActions'> = async (input, ctx, deps) => {
  const actions = await listActions(moderationDeps(deps), signedInUser(ctx), { targetId: input.query.target === undefined ? undefined : Number(input.query.target), limit: input.query.limit });
  const body: JsonBody<'listModerationActions', 200> = { actions };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
