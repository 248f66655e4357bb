/** The account's authenticator app and recovery codes (src/accounts/second-factor.ts). */
import type Koa from 'koa';
import { noticeSecurityChange } from '../accounts/notices.js';
import {
  confirmTotpSetup as confirmSetup,
  disableTotp as disable,
  replaceRecoveryCodes as replaceCodes,
  secondFactorStatus,
  startTotpSetup as startSetup,
  type SecondFactorDeps,
} from '../accounts/second-factor.js';
import { currentSessionIdHash, passkeyConfirmedAt } from '../sessions/session.js';
import type { AppDeps, Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

/** What the second factor needs of the app's dependencies: SESSION_SECRET seals, PUBLIC_URL's host name is the issuer (no port: a colon would split the label). */
export function secondFactorDeps(deps: AppDeps): SecondFactorDeps {
  return { ...deps, secrets: deps.config.sessionSecrets, issuer: new URL(deps.config.publicUrl).hostname };
}

function sendJson(ctx: Koa.Context, body: unknown): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

export const getSecondFactor: Handler<'getSecondFactor'> = async (_input, ctx, deps) => {
  const body: JsonBody<'getSecondFactor', 200> = await secondFactorStatus(deps, signedInUser(ctx).id);
  sendJson(ctx, body);
};

export const startTotpSetup: Handler<'startTotpSetup'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, passkeyConfirmedAt: passkeyConfirmedAt(ctx) };
  const body: JsonBody<'startTotpSetup', 200> = await startSetup(secondFactorDeps(deps), signedInUser(ctx), proof, ctx.ip);
  sendJson(ctx, body);
};

export const confirmTotpSetup: Handler<'confirmTotpSetup'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  const { recoveryCodes, endedSessions } = await confirmSetup(secondFactorDeps(deps), user, input.body.code, ctx.ip, currentSessionIdHash(ctx));
  noticeSecurityChange(deps, user.id, 'totp_enabled');
  const body: JsonBody<'confirmTotpSetup', 200> = { recoveryCodes, endedSessions };
  sendJson(ctx, body);
};

export const disableTotp: Handler<'disableTotp'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  await disable(secondFactorDeps(deps), user, { password: input.body?.password, passkeyConfirmedAt: passkeyConfirmedAt(ctx) }, ctx.ip);
  noticeSecurityChange(deps, user.id, 'totp_disabled');
  ctx.status = 204;
};

export const replaceRecoveryCodes: Handler<'replaceRecoveryCodes'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, passkeyConfirmedAt: passkeyConfirmedAt(ctx) };
  const user = signedInUser(ctx);
  const recoveryCodes = await replaceCodes(secondFactorDeps(deps), user, proof, ctx.ip);
  noticeSecurityChange(deps, user.id, 'recovery_codes_replaced');
  const body: JsonBody<'replaceRecoveryCodes', 200> = { recoveryCodes };
  sendJson(ctx, body);
};
